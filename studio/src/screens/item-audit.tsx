import { Button, Group, Loader, SegmentedControl, Table, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { ItemRef } from '../history.ts';
import { t } from '../i18n/en.ts';
import { showValue } from '../items-table.ts';
import { useApi } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';

interface AuditEntry {
  id: string;
  type: string;
  stream: string;
  version: number;
  actor: { type: string; id: string; onBehalfOf?: string };
  time: string;
  data: Record<string, unknown>;
}

const PAGE = 20;

/** The audit log filtered to the item's stream (or its named versions' stream), newest first, a page at a time. */
export function ItemAudit(ref: ItemRef) {
  const api = useApi();
  const [which, setWhich] = useState<'item' | 'item-versions'>('item');
  // The `before` cursors of the pages seen so far: the last is the page shown ('' for the first).
  const [cursors, setCursors] = useState<string[]>(['']);
  const before = cursors.at(-1) || undefined;
  const stream = `${ref.site}/${which}/${ref.collection}/${ref.id}`;
  const list = useQuery({
    queryKey: ['audit', ref.site, stream, before],
    queryFn: () =>
      api.get<AuditEntry[], { next: string | null }>('/audit', {
        site: ref.site,
        query: { stream, limit: PAGE, before },
      }),
    placeholderData: keepPreviousData,
  });
  const next = list.data?.meta?.next ?? null;
  return (
    <>
      <Group mb="md">
        <Text size="sm" id="audit-stream-label">
          {t('audit.stream')}
        </Text>
        <SegmentedControl
          aria-labelledby="audit-stream-label"
          value={which}
          onChange={(v) => {
            setWhich(v as typeof which);
            setCursors(['']);
          }}
          data={[
            { value: 'item', label: t('audit.item') },
            { value: 'item-versions', label: t('audit.versions') },
          ]}
        />
      </Group>
      {list.isError && <ErrorNotice error={list.error} retry={() => void list.refetch()} />}
      {list.isPending && <Loader aria-label={t('app.loading')} />}
      {list.data &&
        !list.isError &&
        (list.data.data.length === 0 ? (
          <Text>{t('audit.empty')}</Text>
        ) : (
          <Table.ScrollContainer minWidth={700}>
            <Table striped aria-label={t('audit.table')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">{t('audit.time')}</Table.Th>
                  <Table.Th scope="col">{t('audit.type')}</Table.Th>
                  <Table.Th scope="col">{t('audit.actor')}</Table.Th>
                  <Table.Th scope="col">{t('audit.data')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.data.map((e) => (
                  <Table.Tr key={e.id}>
                    <Table.Td>{new Date(e.time).toLocaleString()}</Table.Td>
                    <Table.Td>{e.type}</Table.Td>
                    <Table.Td>
                      {e.actor.type} {e.actor.id}
                      {e.actor.onBehalfOf ? ` (${e.actor.onBehalfOf})` : ''}
                    </Table.Td>
                    <Table.Td>{showValue(e.data)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        ))}
      <Group mt="md">
        <Button variant="default" disabled={cursors.length <= 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
          {t('audit.newer')}
        </Button>
        <Button variant="default" disabled={!next} onClick={() => next && setCursors((c) => [...c, next])}>
          {t('audit.older')}
        </Button>
      </Group>
    </>
  );
}
