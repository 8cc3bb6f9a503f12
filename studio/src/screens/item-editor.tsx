import {
  Alert,
  Button,
  Checkbox,
  Group,
  List,
  Loader,
  Modal,
  Select,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useEffect, useMemo, useState } from 'react';
import { ApiError } from '../api/client.ts';
import { t } from '../i18n/en.ts';
import {
  changesOf,
  controlOf,
  differingFields,
  editableFields,
  errorsByField,
  formOf,
  type Control,
  type FieldInfo,
  type FormValue,
  type FormValues,
  type RelationInfo,
} from '../item-form.ts';
import { showValue } from '../items-table.ts';
import { can } from '../nav.ts';
import { useApi, usePermissions } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';
import { FileField } from './file-field.tsx';
import { ItemHistoryLinks } from './history-links.tsx';

type Item = Record<string, unknown>;
const itemPath = (collection: string, id: string) =>
  `/items/${encodeURIComponent(collection)}/${encodeURIComponent(id)}`;

export function EditItem() {
  const { site, collection, id } = useParams({ from: '/s/$site/collections/$collection/items/$id' });
  return <Editor key={id} site={site} collection={collection} id={id} from={undefined} />;
}

export function NewItem() {
  const { site, collection } = useParams({ from: '/s/$site/collections/$collection/new' });
  const { from } = useSearch({ from: '/s/$site/collections/$collection/new' });
  return <Editor key={from ?? 'new'} site={site} collection={collection} id={null} from={from} />;
}

/** The conflict after a stale save: their item and version beside what this form holds. */
interface Conflict {
  theirs: Item;
  version: number | null;
}

function Editor({
  site,
  collection,
  id,
  from,
}: {
  site: string;
  collection: string;
  id: string | null;
  from: string | undefined;
}) {
  const api = useApi();
  const queries = useQueryClient();
  const navigate = useNavigate();
  const permissions = usePermissions(site);
  const source = id ?? from ?? null;

  const fields = useQuery({
    queryKey: ['fields', site, collection],
    queryFn: async () => (await api.get<FieldInfo[]>(`/fields/${encodeURIComponent(collection)}`, { site })).data,
  });
  const relations = useQuery({
    queryKey: ['relations', site],
    queryFn: async () => (await api.get<RelationInfo[]>('/relations', { site })).data,
  });
  const item = useQuery({
    queryKey: ['item', site, collection, source],
    enabled: source !== null,
    staleTime: 0,
    queryFn: async () => (await api.get<Item>(itemPath(collection, source!), { site })).data,
  });
  // The API's version of the item (its If-Match value) is the stream version of its newest revision.
  const versionOf = async (itemId: string) => {
    const revs = await api.get<{ version: number }[]>(`${itemPath(collection, itemId)}/revisions`, {
      site,
      query: { limit: 1 },
    });
    return revs.data[0]?.version ?? null;
  };
  const loadedVersion = useQuery({
    queryKey: ['item-version', site, collection, id],
    enabled: id !== null,
    staleTime: 0,
    queryFn: () => versionOf(id!),
  });

  const ordered = useMemo(() => editableFields(fields.data ?? []), [fields.data]);
  const relationOf = useMemo(() => {
    const map: Record<string, RelationInfo> = {};
    for (const r of relations.data ?? []) if (r.collection === collection) map[r.field] = r;
    return map;
  }, [relations.data, collection]);
  const controls = useMemo(
    () =>
      Object.fromEntries(ordered.map((f) => [f.field, controlOf(f, relationOf[f.field])])) as Record<string, Control>,
    [ordered, relationOf],
  );

  const [loaded, setLoaded] = useState<FormValues | null>(null);
  const [values, setValues] = useState<FormValues>({});
  const [version, setVersion] = useState<number | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string[]>>({});
  const [formError, setFormError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [deleting, setDeleting] = useState(false);

  const ready =
    fields.isSuccess &&
    relations.isSuccess &&
    (source === null || item.isSuccess) &&
    (id === null || !loadedVersion.isPending);
  useEffect(() => {
    if (!ready || loaded !== null) return;
    const start = source !== null && item.data ? formOf(ordered, controls, item.data) : formOf(ordered, controls, {});
    // A duplicate starts from the original's values but is a new item: nothing of it counts as loaded.
    setLoaded(id === null ? formOf(ordered, controls, {}) : start);
    setValues(start);
    setVersion(loadedVersion.data ?? null);
  }, [ready, loaded, source, item.data, ordered, controls, id, loadedVersion.data]);

  const mayUpdate = permissions.data ? can(permissions.data, collection, id ? 'update' : 'create') : false;
  const mayCreate = permissions.data ? can(permissions.data, collection, 'create') : false;
  const mayDelete = permissions.data ? can(permissions.data, collection, 'delete') : false;

  const showErrors = (e: unknown) => {
    if (e instanceof ApiError) {
      const byField = errorsByField(e.errors);
      const known = Object.fromEntries(Object.entries(byField).filter(([f]) => Object.hasOwn(controls, f)));
      setFieldErrors(known);
      if (Object.keys(known).length < Object.keys(byField).length || Object.keys(known).length === 0) setFormError(e);
    } else setFormError(e);
  };

  const write = async (changes: Item, ifVersion: number | null) => {
    const res = await api.request<Item, { version: number }>('PATCH', itemPath(collection, id!), {
      site,
      body: changes,
      headers: ifVersion === null ? undefined : { 'if-match': `"${ifVersion}"` },
    });
    const form = formOf(ordered, controls, res.data);
    setLoaded(form);
    setValues(form);
    setVersion(res.meta?.version ?? null);
    setSaved(true);
    queries.setQueryData(['item', site, collection, id], res.data);
    await queries.invalidateQueries({ queryKey: ['items', site, collection] });
  };

  const save = async () => {
    if (!loaded) return;
    setSaved(false);
    setFormError(null);
    const { changes, errors } = changesOf(ordered, controls, loaded, values, id === null);
    setFieldErrors(Object.fromEntries(Object.entries(errors).map(([f, m]) => [f, [m]])));
    if (Object.keys(errors).length > 0) return;
    setBusy(true);
    try {
      if (id === null) {
        const res = await api.request<Item>('POST', `/items/${encodeURIComponent(collection)}`, {
          site,
          body: changes,
        });
        await queries.invalidateQueries({ queryKey: ['items', site, collection] });
        await navigate({
          to: '/s/$site/collections/$collection/items/$id',
          params: { site, collection, id: String(res.data.id) },
        });
        return;
      }
      if (Object.keys(changes).length === 0) {
        setSaved(true);
        return;
      }
      await write(changes, version);
    } catch (e) {
      if (e instanceof ApiError && (e.status === 412 || (e.status === 409 && e.code === 'CONFLICT')) && id) {
        try {
          const [theirs, theirVersion] = await Promise.all([
            api.get<Item>(itemPath(collection, id), { site }).then((r) => r.data),
            versionOf(id),
          ]);
          setConflict({ theirs, version: theirVersion });
        } catch (again) {
          showErrors(again);
        }
      } else showErrors(e);
    } finally {
      setBusy(false);
    }
  };

  const keepMine = async () => {
    if (!conflict || !loaded) return;
    const { changes } = changesOf(ordered, controls, loaded, values, false);
    setConflict(null);
    setBusy(true);
    try {
      await write(changes, conflict.version);
    } catch (e) {
      showErrors(e);
    } finally {
      setBusy(false);
    }
  };
  const takeTheirs = () => {
    if (!conflict) return;
    const form = formOf(ordered, controls, conflict.theirs);
    setLoaded(form);
    setValues(form);
    setVersion(conflict.version);
    setFieldErrors({});
    setConflict(null);
  };

  const heading = id ? t('editor.editTitle', { collection, id }) : t('editor.newTitle', { collection });
  const back = (
    <Link to="/s/$site/collections/$collection" params={{ site, collection }} search={{ page: 1 }}>
      {t('editor.back', { collection })}
    </Link>
  );
  const failed = [fields, relations, item, loadedVersion].find((q) => q.isError);
  if (failed)
    return (
      <>
        <Title order={2} mb="md">
          {heading}
        </Title>
        <ErrorNotice error={failed.error} retry={() => void failed.refetch()} />
        <Text mt="md">{back}</Text>
      </>
    );
  if (!ready || loaded === null) return <Loader aria-label={t('app.loading')} />;

  const relatedLists = (relations.data ?? []).filter(
    (r) => r.collection === collection && r.kind !== 'm2o' && !Object.hasOwn(controls, r.field),
  );

  return (
    <>
      <Text size="sm" mb="xs">
        {back}
      </Text>
      <Title order={2} mb={id ? 'xs' : 'md'}>
        {heading}
      </Title>
      {id && (
        <Text component="div" mb="md">
          <ItemHistoryLinks site={site} collection={collection} id={id} />
        </Text>
      )}
      <form
        aria-label={heading}
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <Stack gap="sm" maw={720}>
          {formError !== null && <ErrorNotice error={formError} />}
          {saved && (
            <Alert color="green" role="status">
              {t('editor.saved')}
            </Alert>
          )}
          {ordered.map((f) => (
            <FieldControl
              key={f.field}
              site={site}
              field={f}
              control={controls[f.field]!}
              relation={relationOf[f.field]}
              value={values[f.field] ?? ''}
              error={fieldErrors[f.field]?.join(' ')}
              disabled={f.readonly || !mayUpdate}
              onChange={(v) => {
                setValues((prev) => ({ ...prev, [f.field]: v }));
                setSaved(false);
              }}
            />
          ))}
          {id &&
            relatedLists.map((r) => (
              <Stack key={r.field} gap={2}>
                <Text size="sm" fw={500}>
                  {r.field} ({r.kind} → {r.target ?? '*'})
                </Text>
                <RelatedList value={item.data?.[r.field]} />
              </Stack>
            ))}
          <Group>
            {mayUpdate && (
              <Button type="submit" loading={busy}>
                {id ? t('editor.save') : t('editor.create')}
              </Button>
            )}
            {id && mayCreate && (
              <Button
                variant="default"
                onClick={() =>
                  void navigate({
                    to: '/s/$site/collections/$collection/new',
                    params: { site, collection },
                    search: { from: id },
                  })
                }
              >
                {t('editor.duplicate')}
              </Button>
            )}
            {id && mayDelete && (
              <Button variant="light" color="red" onClick={() => setDeleting(true)}>
                {t('editor.delete')}
              </Button>
            )}
          </Group>
          {id && (
            <Text size="xs" c="dimmed">
              {t('editor.meta', {
                version: version ?? '–',
                updated: showValue(item.data?.updated_at ?? item.data?.created_at),
              })}
            </Text>
          )}
        </Stack>
      </form>
      {conflict && (
        <ConflictDialog
          fields={ordered}
          controls={controls}
          loaded={loaded}
          mine={values}
          theirs={conflict.theirs}
          onKeepMine={() => void keepMine()}
          onTakeTheirs={takeTheirs}
          onClose={() => setConflict(null)}
        />
      )}
      {deleting && id && (
        <DeleteDialog
          site={site}
          collection={collection}
          id={id}
          onClose={() => setDeleting(false)}
          onDeleted={async () => {
            await queries.invalidateQueries({ queryKey: ['items', site, collection] });
            await navigate({
              to: '/s/$site/collections/$collection',
              params: { site, collection },
              search: { page: 1 },
            });
          }}
        />
      )}
    </>
  );
}

function FieldControl({
  site,
  field: f,
  control,
  relation,
  value,
  error,
  disabled,
  onChange,
}: {
  site: string;
  field: FieldInfo;
  control: Control;
  relation: RelationInfo | undefined;
  value: FormValue;
  error: string | undefined;
  disabled: boolean;
  onChange: (v: FormValue) => void;
}) {
  const label = f.field;
  const common = {
    label,
    error,
    disabled,
    withAsterisk: f.required,
    description: f.encrypted ? t('editor.encrypted') : f.personal ? t('editor.personal') : undefined,
  };
  const text = typeof value === 'string' ? value : '';
  switch (control) {
    case 'boolean':
      return (
        <Checkbox
          label={label}
          error={error}
          disabled={disabled}
          checked={value === true}
          onChange={(e) => onChange(e.currentTarget.checked)}
        />
      );
    case 'textarea':
    case 'json':
    case 'list':
      return (
        <Textarea
          {...common}
          autosize
          minRows={control === 'textarea' ? 3 : 2}
          maxRows={16}
          value={text}
          readOnly={control === 'list'}
          styles={control === 'textarea' ? undefined : { input: { fontFamily: 'monospace' } }}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
    case 'select':
      return (
        <Select
          {...common}
          data={f.choices ?? []}
          value={text || null}
          clearable={f.nullable}
          onChange={(v) => onChange(v ?? '')}
        />
      );
    case 'm2o':
      return (
        <RelationPicker
          site={site}
          target={relation!.target!}
          common={common}
          value={text}
          onChange={(v) => onChange(v)}
        />
      );
    case 'file':
      return (
        <FileField
          site={site}
          label={label}
          value={text}
          required={f.required}
          error={error}
          disabled={disabled}
          description={common.description}
          onChange={(v) => onChange(v)}
        />
      );
    case 'number':
      return (
        <TextInput {...common} inputMode="decimal" value={text} onChange={(e) => onChange(e.currentTarget.value)} />
      );
    case 'date':
      return <TextInput {...common} type="date" value={text} onChange={(e) => onChange(e.currentTarget.value)} />;
    case 'time':
      return (
        <TextInput {...common} type="time" step={1} value={text} onChange={(e) => onChange(e.currentTarget.value)} />
      );
    case 'datetime':
      return (
        <TextInput {...common} type="datetime-local" value={text} onChange={(e) => onChange(e.currentTarget.value)} />
      );
    default:
      return <TextInput {...common} value={text} onChange={(e) => onChange(e.currentTarget.value)} />;
  }
}

const SYSTEM = new Set(['id', 'created_at', 'created_by', 'updated_at', 'updated_by', 'status', 'sort']);
/** A target item's label: its id and its first text value. */
const labelOf = (row: Item): string => {
  const text = Object.entries(row).find(([k, v]) => !SYSTEM.has(k) && typeof v === 'string' && v !== '')?.[1];
  return text ? `${String(text)} (${String(row.id)})` : String(row.id);
};

/** The m2o picker: the target's items found by the words typed (full-text search), the current one kept in the list. */
function RelationPicker({
  site,
  target,
  common,
  value,
  onChange,
}: {
  site: string;
  target: string;
  common: { label: string; error?: string; disabled: boolean; withAsterisk: boolean; description?: string };
  value: string;
  onChange: (v: string) => void;
}) {
  const api = useApi();
  const [search, setSearch] = useState('');
  const [words] = useDebouncedValue(search, 250);
  const options = useQuery({
    queryKey: ['m2o', site, target, words],
    queryFn: async () =>
      (
        await api.get<Item[]>(`/items/${encodeURIComponent(target)}`, {
          site,
          query: { limit: 20, meta: 'none', search: words.trim() || undefined },
        })
      ).data,
  });
  const current = useQuery({
    queryKey: ['item', site, target, value],
    enabled: value !== '',
    queryFn: async () => (await api.get<Item>(itemPath(target, value), { site })).data,
  });
  const data = useMemo(() => {
    const rows = [...(options.data ?? [])];
    if (current.data && !rows.some((r) => r.id === current.data.id)) rows.unshift(current.data);
    if (value && !rows.some((r) => String(r.id) === value)) rows.unshift({ id: value });
    return rows.map((r) => ({ value: String(r.id), label: labelOf(r) }));
  }, [options.data, current.data, value]);
  return (
    <Select
      {...common}
      error={common.error ?? (options.isError ? options.error.message : undefined)}
      searchable
      clearable
      data={data}
      value={value || null}
      onChange={(v) => onChange(v ?? '')}
      onSearchChange={setSearch}
      filter={({ options: o }) => o}
      nothingFoundMessage={options.isFetching ? t('app.loading') : t('editor.noMatch')}
    />
  );
}

function RelatedList({ value }: { value: unknown }) {
  if (!Array.isArray(value) || value.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {t('editor.noRelated')}
      </Text>
    );
  return (
    <List size="sm">
      {value.slice(0, 50).map((v, i) => (
        <List.Item key={i}>{showValue(v)}</List.Item>
      ))}
    </List>
  );
}

/** Both versions of the fields that differ: what this form holds and what the other writer saved. */
function ConflictDialog({
  fields,
  controls,
  loaded,
  mine,
  theirs,
  onKeepMine,
  onTakeTheirs,
  onClose,
}: {
  fields: FieldInfo[];
  controls: Record<string, Control>;
  loaded: FormValues;
  mine: FormValues;
  theirs: Item;
  onKeepMine: () => void;
  onTakeTheirs: () => void;
  onClose: () => void;
}) {
  const theirForm = formOf(fields, controls, theirs);
  const names = fields.map((f) => f.field);
  const rows = differingFields(names, mine, theirForm).filter(
    (f) => mine[f] !== loaded[f] || theirForm[f] !== loaded[f],
  );
  const cell = (v: FormValue) => (typeof v === 'boolean' ? (v ? t('common.yes') : t('common.no')) : v);
  return (
    <Modal opened onClose={onClose} title={t('conflict.title')} size="lg">
      <Text size="sm" mb="sm">
        {t('conflict.body')}
      </Text>
      <Table aria-label={t('conflict.table')}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t('conflict.field')}</Table.Th>
            <Table.Th scope="col">{t('conflict.mine')}</Table.Th>
            <Table.Th scope="col">{t('conflict.theirs')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((f) => (
            <Table.Tr key={f}>
              <Table.Th scope="row">{f}</Table.Th>
              <Table.Td>{cell(mine[f] ?? '')}</Table.Td>
              <Table.Td>{cell(theirForm[f] ?? '')}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Group justify="flex-end" mt="md">
        <Button variant="default" onClick={onTakeTheirs}>
          {t('conflict.takeTheirs')}
        </Button>
        <Button onClick={onKeepMine}>{t('conflict.keepMine')}</Button>
      </Group>
    </Modal>
  );
}

interface Dependents {
  blocking: boolean;
  dependents: {
    relation: string;
    collection: string;
    field: string;
    onDelete: string;
    count: number;
    sample: string[];
  }[];
}

/** Deleting: what references the item first; restrict relations resolved (set null or delete them) before the delete. */
function DeleteDialog({
  site,
  collection,
  id,
  onClose,
  onDeleted,
}: {
  site: string;
  collection: string;
  id: string;
  onClose: () => void;
  onDeleted: () => Promise<void>;
}) {
  const api = useApi();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const deps = useQuery({
    queryKey: ['dependents', site, collection, id],
    staleTime: 0,
    queryFn: async () => (await api.get<Dependents>(`${itemPath(collection, id)}/dependents`, { site })).data,
  });
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(e);
      await deps.refetch();
    } finally {
      setBusy(false);
    }
  };
  const resolve = (relation: string, action: 'set_null' | 'delete') =>
    run(async () => {
      await api.request('POST', `${itemPath(collection, id)}/resolve-dependents`, { site, body: { action, relation } });
      await deps.refetch();
    });
  return (
    <Modal opened onClose={onClose} title={t('delete.title', { id })} size="lg">
      {deps.isPending && <Loader aria-label={t('app.loading')} />}
      {deps.isError && <ErrorNotice error={deps.error} retry={() => void deps.refetch()} />}
      {deps.data && (
        <Stack gap="sm">
          {deps.data.dependents.length === 0 ? (
            <Text size="sm">{t('delete.none')}</Text>
          ) : (
            <Table aria-label={t('delete.dependents')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">{t('delete.where')}</Table.Th>
                  <Table.Th scope="col">{t('delete.onDelete')}</Table.Th>
                  <Table.Th scope="col">{t('delete.count')}</Table.Th>
                  <Table.Th scope="col">{t('delete.resolve')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {deps.data.dependents.map((d) => (
                  <Table.Tr key={d.relation}>
                    <Table.Td>
                      {d.collection}.{d.field}
                      <Text size="xs" c="dimmed">
                        {d.sample.join(', ')}
                      </Text>
                    </Table.Td>
                    <Table.Td>{d.onDelete}</Table.Td>
                    <Table.Td>{d.count}</Table.Td>
                    <Table.Td>
                      {d.onDelete === 'restrict' && d.count > 0 && (
                        <Group gap={4}>
                          <Button
                            size="xs"
                            variant="default"
                            disabled={busy}
                            onClick={() => void resolve(d.relation, 'set_null')}
                          >
                            {t('delete.setNull')}
                          </Button>
                          <Button
                            size="xs"
                            variant="light"
                            color="red"
                            disabled={busy}
                            onClick={() => void resolve(d.relation, 'delete')}
                          >
                            {t('delete.deleteThem')}
                          </Button>
                        </Group>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          {deps.data.blocking && (
            <Alert color="yellow" role="status">
              {t('delete.blocked')}
            </Alert>
          )}
          {error !== null && <ErrorNotice error={error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('delete.cancel')}
            </Button>
            <Button
              color="red"
              disabled={deps.data.blocking}
              loading={busy}
              onClick={() =>
                void run(async () => {
                  await api.request('DELETE', itemPath(collection, id), { site });
                  await onDeleted();
                })
              }
            >
              {t('delete.confirm')}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
