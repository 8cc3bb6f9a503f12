import {
  Anchor,
  Badge,
  Button,
  Group,
  Loader,
  Modal,
  MultiSelect,
  Pagination,
  Select,
  Table,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useEffect, useMemo, useState } from 'react';
import { ApiError } from '../api/client.ts';
import { emptyGroup, fromFilter, type Filter, type Group as FilterGroup } from '../filter-builder.ts';
import { t } from '../i18n/en.ts';
import type { FieldInfo } from '../item-form.ts';
import { columnsOf, PAGE_SIZE, pageCount, showValue } from '../items-table.ts';
import { can } from '../nav.ts';
import { useApi, useMe, usePermissions } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';
import { FilterPanel } from './filter-panel.tsx';
import { AsOfListLink } from './history-links.tsx';

/** A saved view as the presets API answers it. */
interface Preset {
  id: string;
  bookmark: string | null;
  sourceScope: string;
  query: {
    fields: string[] | null;
    filter: Filter | null;
    sort: string[] | null;
    limit: number | null;
    search: string | null;
  };
}

/** What the table shows: the filter, the sort, the columns asked for and the search words. */
interface View {
  filter: Filter | null;
  sort: string[];
  fields: string[] | null;
  search: string;
}

const EMPTY_VIEW: View = { filter: null, sort: [], fields: null, search: '' };
const SYSTEM_COLUMNS = ['id', 'created_at', 'created_by', 'updated_at', 'updated_by'];

const viewOf = (p: Preset): View => ({
  filter: p.query.filter,
  sort: p.query.sort ?? [],
  fields: p.query.fields,
  search: p.query.search ?? '',
});

/** One collection's items: filter, sort, columns, search and saved views; a page at a time (the page in the address). */
export function Items() {
  const api = useApi();
  const queries = useQueryClient();
  const { site, collection } = useParams({ from: '/s/$site/collections/$collection' });
  const { page } = useSearch({ from: '/s/$site/collections/$collection' });
  const navigate = useNavigate({ from: '/s/$site/collections/$collection' });
  const me = useMe();
  const permissions = usePermissions(site);
  const base = `/items/${encodeURIComponent(collection)}`;

  const effective = useQuery({
    queryKey: ['preset-effective', site, collection],
    queryFn: async () => (await api.get<Preset | null>('/presets/effective', { site, query: { collection } })).data,
  });
  const bookmarks = useQuery({
    queryKey: ['bookmarks', site, collection],
    queryFn: async () => (await api.get<Preset[]>('/presets/bookmarks', { site, query: { collection } })).data,
  });
  const fields = useQuery({
    queryKey: ['fields', site, collection],
    queryFn: async () => (await api.get<FieldInfo[]>(`/fields/${encodeURIComponent(collection)}`, { site })).data,
  });

  const [view, setView] = useState<View | null>(null);
  const [tree, setTree] = useState<FilterGroup>(() => emptyGroup());
  const [searchText, setSearchText] = useState('');
  const [bookmark, setBookmark] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  // Each applied view renews the filter panel, so its raw JSON box shows the filter in force.
  const [applied, setApplied] = useState(0);

  const apply = (next: View, builder?: FilterGroup | null) => {
    setView(next);
    setApplied((n) => n + 1);
    setSearchText(next.search);
    setTree(builder ?? fromFilter(next.filter) ?? emptyGroup());
    if (page !== 1) void navigate({ search: { page: 1 } });
  };

  // The default view (the caller's, their role's or the global one) once, when the screen opens.
  useEffect(() => {
    if (view === null && (effective.isSuccess || effective.isError)) {
      const initial = effective.data ? viewOf(effective.data) : EMPTY_VIEW;
      setView(initial);
      setSearchText(initial.search);
      setTree(fromFilter(initial.filter) ?? emptyGroup());
    }
  }, [view, effective.isSuccess, effective.isError, effective.data]);

  const current = view ?? EMPTY_VIEW;
  const list = useQuery({
    queryKey: ['items', site, collection, page, current],
    enabled: view !== null,
    queryFn: () =>
      api.get<Record<string, unknown>[], { total?: number }>(base, {
        site,
        query: {
          limit: PAGE_SIZE,
          page,
          meta: 'total_count',
          filter: current.filter ? JSON.stringify(current.filter) : undefined,
          sort: current.sort.length > 0 ? current.sort.join(',') : undefined,
          fields: current.fields && current.fields.length > 0 ? current.fields.join(',') : undefined,
          search: current.search.trim() || undefined,
        },
      }),
    placeholderData: keepPreviousData,
  });

  const fieldNames = useMemo(() => (fields.data ?? []).map((f) => f.field), [fields.data]);
  const types = useMemo(() => Object.fromEntries((fields.data ?? []).map((f) => [f.field, f.type])), [fields.data]);
  const allColumns = useMemo(() => ['id', ...fieldNames, ...SYSTEM_COLUMNS.slice(1)], [fieldNames]);
  const mayCreate = permissions.data ? can(permissions.data, collection, 'create') : false;

  const saveView = useMutation({
    mutationFn: async (name: string) =>
      (
        await api.request<Preset>('POST', '/presets', {
          site,
          body: {
            collection,
            userId: me.data?.id,
            bookmark: name,
            query: {
              fields: current.fields,
              filter: current.filter,
              sort: current.sort.length > 0 ? current.sort : null,
              limit: null,
              search: current.search.trim() || null,
            },
          },
        })
      ).data,
    onSuccess: async (p) => {
      setSaving(false);
      setBookmark(p.id);
      await queries.invalidateQueries({ queryKey: ['bookmarks', site, collection] });
    },
  });

  const title = (
    <Group justify="space-between" mb="md">
      <Group gap="md" align="baseline">
        <Title order={2}>{t('items.title', { collection })}</Title>
        <AsOfListLink site={site} collection={collection} />
      </Group>
      {mayCreate && (
        <Button
          renderRoot={(props) => (
            <Link to="/s/$site/collections/$collection/new" params={{ site, collection }} search={{}} {...props} />
          )}
        >
          {t('items.new')}
        </Button>
      )}
    </Group>
  );

  const sortOf = (c: string): 'ascending' | 'descending' | 'none' =>
    current.sort[0] === c ? 'ascending' : current.sort[0] === `-${c}` ? 'descending' : 'none';
  const toggleSort = (c: string) => {
    const now = sortOf(c);
    apply({ ...current, sort: now === 'ascending' ? [`-${c}`] : now === 'descending' ? [] : [c] }, tree);
  };

  const filterError =
    list.error instanceof ApiError && list.error.errors.some((e) => e.path?.includes('filter'))
      ? list.error.message
      : null;

  const rows = list.data?.data ?? [];
  const columns = current.fields && current.fields.length > 0 ? current.fields : columnsOf(rows);
  const total = list.data?.meta?.total;
  const pages = pageCount(total, PAGE_SIZE);

  return (
    <>
      {title}
      <Group align="flex-end" mb="sm" gap="sm">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            apply({ ...current, search: searchText }, tree);
          }}
        >
          <Group gap="xs" align="flex-end">
            <TextInput
              label={t('items.search')}
              type="search"
              value={searchText}
              onChange={(e) => setSearchText(e.currentTarget.value)}
              w={240}
            />
            <Button type="submit" variant="default">
              {t('items.searchSubmit')}
            </Button>
          </Group>
        </form>
        <MultiSelect
          label={t('items.columns')}
          placeholder={current.fields ? undefined : t('items.columnsAll')}
          data={allColumns}
          value={current.fields ?? []}
          onChange={(v) => apply({ ...current, fields: v.length > 0 ? v : null }, tree)}
          w={320}
          clearable
        />
      </Group>
      <Group align="flex-end" mb="sm" gap="sm">
        <Select
          label={t('views.bookmarks')}
          placeholder={t('views.choose')}
          data={(bookmarks.data ?? []).map((b) => ({
            value: b.id,
            label: `${b.bookmark ?? ''} (${t(`views.scope.${b.sourceScope}` as 'views.scope.user')})`,
          }))}
          value={bookmark}
          onChange={(id) => {
            setBookmark(id);
            const chosen = bookmarks.data?.find((b) => b.id === id);
            if (chosen) apply(viewOf(chosen));
          }}
          w={280}
          clearable
          error={bookmarks.isError ? bookmarks.error.message : undefined}
        />
        <Button variant="default" onClick={() => setSaving(true)} disabled={!me.data}>
          {t('views.save')}
        </Button>
        {effective.data && (
          <Text size="sm" c="dimmed" data-testid="default-view">
            {t('views.default', { scope: t(`views.scope.${effective.data.sourceScope}` as 'views.scope.user') })}
          </Text>
        )}
      </Group>
      <FilterPanel
        key={view === null ? 'pending' : applied}
        fields={fieldNames.length > 0 ? ['id', ...fieldNames] : ['id']}
        types={types}
        tree={tree}
        onTree={setTree}
        applied={current.filter}
        onApply={(filter) => apply({ ...current, filter }, tree)}
        error={filterError}
      />
      {list.isError && !filterError && <ErrorNotice error={list.error} retry={() => void list.refetch()} />}
      {(list.isPending || view === null) && !list.isError && <Loader aria-label={t('app.loading')} />}
      {list.isSuccess &&
        (rows.length === 0 ? (
          <Text>{t('items.empty')}</Text>
        ) : (
          <Table.ScrollContainer minWidth={600}>
            <Table striped highlightOnHover aria-label={t('items.table', { collection })}>
              <Table.Thead>
                <Table.Tr>
                  {columns.map((c) => (
                    <Table.Th key={c} scope="col" aria-sort={sortOf(c)}>
                      <UnstyledButton onClick={() => toggleSort(c)} aria-label={t('items.sortBy', { column: c })}>
                        {c}
                        {sortOf(c) === 'ascending' ? ' ▲' : sortOf(c) === 'descending' ? ' ▼' : ''}
                      </UnstyledButton>
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((row, i) => (
                  <Table.Tr key={showValue(row.id) || i}>
                    {columns.map((c) => (
                      <Table.Td key={c}>
                        {c === 'id' && typeof row.id === 'string' ? (
                          <Anchor
                            renderRoot={(props) => (
                              <Link
                                to="/s/$site/collections/$collection/items/$id"
                                params={{ site, collection, id: row.id as string }}
                                {...props}
                              />
                            )}
                          >
                            {row.id}
                          </Anchor>
                        ) : (
                          showValue(Object.hasOwn(row, c) ? row[c] : undefined)
                        )}
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        ))}
      <Group justify="space-between" mt="md">
        {total !== undefined && <Text size="sm">{t('items.total', { count: total })}</Text>}
        {pages > 1 && (
          <Pagination
            total={pages}
            value={page}
            onChange={(p) => void navigate({ search: { page: p } })}
            getControlProps={(control) => ({ 'aria-label': `${t('items.page')} ${control}` })}
            getItemProps={(p) => ({ 'aria-label': `${t('items.page')} ${p}` })}
          />
        )}
      </Group>
      <SaveViewDialog
        opened={saving}
        onClose={() => setSaving(false)}
        onSave={(name) => saveView.mutate(name)}
        pending={saveView.isPending}
        error={saveView.error}
      />
    </>
  );
}

function SaveViewDialog({
  opened,
  onClose,
  onSave,
  pending,
  error,
}: {
  opened: boolean;
  onClose: () => void;
  onSave: (name: string) => void;
  pending: boolean;
  error: Error | null;
}) {
  const [name, setName] = useState('');
  const fieldError =
    error instanceof ApiError
      ? error.errors
          .filter((e) => e.path?.[0] === 'bookmark' || !e.path?.length)
          .map((e) => e.message)
          .join(' ') || error.message
      : (error?.message ?? undefined);
  return (
    <Modal opened={opened} onClose={onClose} title={t('views.saveTitle')}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) onSave(name.trim());
        }}
      >
        <TextInput
          label={t('views.name')}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fieldError}
          data-autofocus
          required
        />
        <Group justify="flex-end" mt="md">
          <Badge variant="light">{t('views.scope.user')}</Badge>
          <Button type="submit" loading={pending}>
            {t('views.saveSubmit')}
          </Button>
        </Group>
      </form>
    </Modal>
  );
}
