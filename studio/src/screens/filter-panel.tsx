import { ActionIcon, Alert, Button, Group, Paper, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useState } from 'react';
import {
  emptyGroup,
  newCondition,
  OPERATOR_NAMES,
  OPERATORS,
  toFilter,
  updateNode,
  type BuildError,
  type FieldTypes,
  type Filter,
  type FilterNode,
  type Group as FilterGroup,
  type Logic,
  type Operator,
} from '../filter-builder.ts';
import { t } from '../i18n/en.ts';

/**
 * The filter of the items table: a builder (conditions in and/or groups) and the raw JSON it makes, either of which
 * applies. `error` is the API's answer to the applied filter, shown here, next to what caused it.
 */
export function FilterPanel({
  fields,
  types,
  tree,
  onTree,
  applied,
  onApply,
  error,
}: {
  fields: string[];
  types: FieldTypes;
  tree: FilterGroup;
  onTree: (tree: FilterGroup) => void;
  applied: Filter | null;
  onApply: (filter: Filter | null) => void;
  error: string | null;
}) {
  const [raw, setRaw] = useState(() => (applied ? JSON.stringify(applied, null, 2) : ''));
  const [rawError, setRawError] = useState<string | null>(null);
  const [buildErrors, setBuildErrors] = useState<BuildError[]>([]);

  const applyBuilder = () => {
    const built = toFilter(tree, types);
    setBuildErrors(built.errors);
    if (built.errors.length > 0) return;
    setRaw(built.filter ? JSON.stringify(built.filter, null, 2) : '');
    setRawError(null);
    onApply(built.filter);
  };
  const applyRaw = () => {
    if (raw.trim() === '') {
      setRawError(null);
      onApply(null);
      return;
    }
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      setRawError(null);
      onApply(parsed as Filter);
    } catch {
      setRawError(t('filter.rawInvalid'));
    }
  };

  return (
    <Paper withBorder p="sm" mb="md" component="section" aria-label={t('filter.title')}>
      <Stack gap="sm">
        <Text fw={600} size="sm">
          {t('filter.title')}
        </Text>
        <GroupEditor
          group={tree}
          root
          fields={fields}
          errors={buildErrors}
          onChange={(id, change) => onTree(updateNode(tree, id, change))}
        />
        <Group gap="xs">
          <Button size="xs" onClick={applyBuilder}>
            {t('filter.apply')}
          </Button>
          <Button
            size="xs"
            variant="default"
            onClick={() => {
              onTree(emptyGroup());
              setRaw('');
              setBuildErrors([]);
              setRawError(null);
              onApply(null);
            }}
          >
            {t('filter.clear')}
          </Button>
        </Group>
        <Textarea
          label={t('filter.raw')}
          description={t('filter.rawHelp')}
          autosize
          minRows={2}
          maxRows={10}
          value={raw}
          onChange={(e) => setRaw(e.currentTarget.value)}
          error={rawError ?? error ?? undefined}
          styles={{ input: { fontFamily: 'monospace' } }}
        />
        <Group>
          <Button size="xs" variant="light" onClick={applyRaw}>
            {t('filter.applyRaw')}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

function GroupEditor({
  group,
  root,
  fields,
  errors,
  onChange,
}: {
  group: FilterGroup;
  root?: boolean;
  fields: string[];
  errors: BuildError[];
  onChange: (id: string, change: (node: FilterNode) => FilterNode | null) => void;
}) {
  const add = (node: FilterNode) =>
    onChange(group.id, (g) => (g.kind === 'group' ? { ...g, children: [...g.children, node] } : g));
  return (
    <Stack gap="xs" pl={root ? 0 : 'md'} role="group" aria-label={root ? t('filter.rootGroup') : t('filter.group')}>
      <Group gap="xs">
        <Select
          aria-label={t('filter.logic')}
          size="xs"
          w={140}
          allowDeselect={false}
          data={[
            { value: '_and', label: t('filter.and') },
            { value: '_or', label: t('filter.or') },
          ]}
          value={group.logic}
          onChange={(v) => v && onChange(group.id, (g) => ({ ...(g as FilterGroup), logic: v as Logic }))}
        />
        <Button size="xs" variant="subtle" onClick={() => add(newCondition(fields[0] ?? ''))}>
          {t('filter.addCondition')}
        </Button>
        <Button size="xs" variant="subtle" onClick={() => add(emptyGroup(group.logic === '_and' ? '_or' : '_and'))}>
          {t('filter.addGroup')}
        </Button>
        {!root && (
          <Button size="xs" variant="subtle" color="red" onClick={() => onChange(group.id, () => null)}>
            {t('filter.removeGroup')}
          </Button>
        )}
      </Group>
      {group.children.map((node, i) =>
        node.kind === 'group' ? (
          <GroupEditor key={node.id} group={node} fields={fields} errors={errors} onChange={onChange} />
        ) : (
          <ConditionRow
            key={node.id}
            n={i + 1}
            condition={node}
            fields={fields}
            error={errors.find((e) => e.id === node.id)?.message}
            onChange={onChange}
          />
        ),
      )}
    </Stack>
  );
}

function ConditionRow({
  n,
  condition,
  fields,
  error,
  onChange,
}: {
  n: number;
  condition: Extract<FilterNode, { kind: 'condition' }>;
  fields: string[];
  error: string | undefined;
  onChange: (id: string, change: (node: FilterNode) => FilterNode | null) => void;
}) {
  const set = (patch: Partial<typeof condition>) => onChange(condition.id, (c) => ({ ...c, ...patch }) as FilterNode);
  const arity = OPERATORS[condition.op];
  const fieldData = fields.includes(condition.field) || !condition.field ? fields : [...fields, condition.field];
  return (
    <Group gap="xs" align="flex-start" role="group" aria-label={t('filter.condition', { n })}>
      <Select
        aria-label={t('filter.field')}
        placeholder={t('filter.field')}
        size="xs"
        w={160}
        searchable
        data={fieldData}
        value={condition.field || null}
        onChange={(v) => set({ field: v ?? '' })}
      />
      <Select
        aria-label={t('filter.operator')}
        size="xs"
        w={150}
        allowDeselect={false}
        data={OPERATOR_NAMES}
        value={condition.op}
        onChange={(v) => v && set({ op: v as Operator })}
      />
      {arity !== 'none' && (
        <TextInput
          aria-label={t('filter.value')}
          placeholder={t(`filter.placeholder.${arity}`)}
          size="xs"
          w={220}
          value={condition.value}
          error={error}
          onChange={(e) => set({ value: e.currentTarget.value })}
        />
      )}
      {arity === 'none' && error && (
        <Alert color="red" p={4}>
          {error}
        </Alert>
      )}
      <ActionIcon
        variant="subtle"
        color="red"
        size="md"
        aria-label={t('filter.removeCondition', { n })}
        onClick={() => onChange(condition.id, () => null)}
      >
        ×
      </ActionIcon>
    </Group>
  );
}
