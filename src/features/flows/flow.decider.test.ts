import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { fold } from '../../kernel/es/decider.ts';
import { flowDecider, type FlowCommand } from './flow.decider.ts';
import type { FlowDefinition, FlowEvent } from '../../contracts/flows/flow.events.ts';

const given = deciderSpec(flowDecider);
const now = '2026-03-01T10:00:00.000Z';
const definition: FlowDefinition = {
  name: 'f',
  description: null,
  status: 'draft',
  trigger: 'manual',
  triggerOptions: {},
  graph: { nodes: [], edges: [] },
  runAs: 'editor',
  options: {},
};
const meta = { flowId: 'f1', now, by: 'u1' };
const created: FlowEvent = {
  type: 'FlowCreated',
  data: { flowId: 'f1', definition, nextRunAt: null, at: now, by: 'u1' },
};
const deleted: FlowEvent = { type: 'FlowDeleted', data: { flowId: 'f1', at: now, by: 'u1' } };
const update = (changes: Partial<FlowDefinition>): FlowCommand => ({ type: 'UpdateFlow', data: { ...meta, changes } });
const log = { nodes: [{ id: 'a', operation: 'log', options: { message: 'x' } }], edges: [] };

describe('Flow', () => {
  it('is created as given', () =>
    given([])
      .when({ type: 'CreateFlow', data: { ...meta, definition } })
      .then([created]));

  it('records the whole definition and the changed keys on a save', () =>
    given([created])
      .when(update({ name: 'g', graph: log }))
      .then([
        {
          type: 'FlowUpdated',
          data: {
            flowId: 'f1',
            definition: { ...definition, name: 'g', graph: log },
            changed: ['name', 'graph'],
            nextRunAt: null,
            at: now,
            by: 'u1',
          },
        },
      ]));

  it('records nothing for a save that changes nothing', () =>
    given([created])
      .when(update({ name: 'f' }))
      .then([]));

  it('computes nextRunAt when an active schedule flow is saved', () => {
    const events = flowDecider.decide(
      update({ status: 'active', trigger: 'schedule', triggerOptions: { cron: '0 12 * * *' }, graph: log }),
      fold(flowDecider, [created]),
    );
    expect(events[0]!.data).toMatchObject({ nextRunAt: '2026-03-01T12:00:00.000Z' });
  });

  describe('when deleted', () => {
    it('refuses saves, deletes and tokens with NOT_FOUND', () => {
      given([created, deleted])
        .when(update({ name: 'x' }))
        .thenThrows('NOT_FOUND');
      given([created, deleted]).when({ type: 'DeleteFlow', data: meta }).thenThrows('NOT_FOUND');
      given([created, deleted])
        .when({ type: 'RotateFlowToken', data: { ...meta, tokenHash: 'h' } })
        .thenThrows('NOT_FOUND');
    });
  });

  it('refuses activating an invalid graph with its code', () =>
    given([created])
      .when(update({ status: 'active' }))
      .thenThrows('GRAPH_NO_ENTRY'));

  it('evolve accepts every event that decide emits, and folding them gives the same state', () => {
    const change = fc.record(
      {
        name: fc.constantFrom('a', 'b'),
        status: fc.constantFrom('draft', 'active', 'inactive'),
        trigger: fc.constantFrom('manual', 'schedule', 'webhook'),
        triggerOptions: fc.constantFrom({}, { cron: '0 0 * * *' }, { cron: '@daily' }),
        graph: fc.constantFrom(definition.graph, log),
      },
      { requiredKeys: [] },
    ) as fc.Arbitrary<Partial<FlowDefinition>>;
    const command: fc.Arbitrary<FlowCommand> = fc.oneof(
      fc.constant<FlowCommand>({ type: 'CreateFlow', data: { ...meta, definition } }),
      change.map(update),
      fc.constant<FlowCommand>({ type: 'RotateFlowToken', data: { ...meta, tokenHash: 'h' } }),
      fc.constant<FlowCommand>({ type: 'DeleteFlow', data: meta }),
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 12 }), (cmds) => {
        const { state, events } = runCommands(flowDecider, cmds);
        expect(fold(flowDecider, events)).toEqual(state);
      }),
    );
  });
});
