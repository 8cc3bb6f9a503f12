import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Loader,
  Modal,
  Pagination,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client.ts';
import type { Revision } from '../history.ts';
import { t, type MessageKey } from '../i18n/en.ts';
import { pageCount } from '../items-table.ts';
import { can, RESOURCES } from '../nav.ts';
import {
  addItemOf,
  isOpen,
  outcomeCounts,
  scheduleBody,
  toLocalInput,
  windowProblems,
  type AtomicityMode,
  type MaintenanceWindow,
  type Outcome,
  type Release,
  type ReleaseStatus,
} from '../releases.ts';
import { useApi, usePermissions } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';

const PAGE = 25;
const STATUSES: ReleaseStatus[] = ['draft', 'scheduled', 'published', 'partially_failed', 'failed'];
const MODES: AtomicityMode[] = ['all_or_nothing', 'best_effort'];
const statusLabel = (s: string) =>
  STATUSES.includes(s as ReleaseStatus) ? t(`releases.status.${s}` as MessageKey) : s;
const statusColor = (s: string) =>
  s === 'published'
    ? 'green'
    : s === 'failed'
      ? 'red'
      : s === 'partially_failed'
        ? 'orange'
        : s === 'scheduled'
          ? 'blue'
          : 'gray';
const fmt = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** The site's releases, paged, filtered by status, and a form for a new one. */
export function Releases() {
  const api = useApi();
  const { site } = useParams({ from: '/s/$site/releases' });
  const navigate = useNavigate();
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [mode, setMode] = useState<AtomicityMode>('all_or_nothing');
  const list = useQuery({
    queryKey: ['releases', site, status, page],
    queryFn: () =>
      api.get<Release[], { total: number }>('/releases', {
        site,
        query: { page, limit: PAGE, status: status ?? undefined },
      }),
    placeholderData: keepPreviousData,
  });
  const create = useMutation({
    mutationFn: async () =>
      (await api.request<Release>('POST', '/releases', { site, body: { name, atomicityMode: mode } })).data,
    onSuccess: (r) => void navigate({ to: '/s/$site/releases/$id', params: { site, id: r.id } }),
  });
  const nameError =
    create.error instanceof ApiError ? create.error.errors.find((e) => e.path?.includes('name'))?.message : undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const pages = pageCount(list.data?.meta?.total, PAGE);
  return (
    <>
      <Title order={2} mb="md">
        {t('releases.title')}
      </Title>
      <Paper withBorder p="sm" mb="md" component="form" onSubmit={submit} aria-label={t('releases.new')}>
        <Group align="flex-end">
          <TextInput
            label={t('releases.name')}
            required
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={nameError}
          />
          <Select
            label={t('releases.mode')}
            data={MODES.map((m) => ({ value: m, label: t(`releases.mode.${m}`) }))}
            value={mode}
            allowDeselect={false}
            onChange={(v) => v && setMode(v as AtomicityMode)}
          />
          <Button type="submit" loading={create.isPending}>
            {t('releases.createSubmit')}
          </Button>
        </Group>
        {create.isError && !nameError && (
          <Stack mt="sm">
            <ErrorNotice error={create.error} />
          </Stack>
        )}
      </Paper>
      <Select
        mb="sm"
        w={260}
        label={t('releases.statusFilter')}
        placeholder={t('releases.statusAll')}
        clearable
        data={STATUSES.map((s) => ({ value: s, label: statusLabel(s) }))}
        value={status}
        onChange={(v) => {
          setStatus(v);
          setPage(1);
        }}
      />
      {list.isError && <ErrorNotice error={list.error} retry={() => void list.refetch()} />}
      {list.isPending && <Loader aria-label={t('app.loading')} />}
      {list.data &&
        (list.data.data.length === 0 ? (
          <Text>{t('releases.none')}</Text>
        ) : (
          <Table striped highlightOnHover aria-label={t('releases.table')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('releases.name')}</Table.Th>
                <Table.Th scope="col">{t('releases.status')}</Table.Th>
                <Table.Th scope="col">{t('releases.mode')}</Table.Th>
                <Table.Th scope="col">{t('releases.publishAt')}</Table.Th>
                <Table.Th scope="col">{t('releases.items')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.data.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>
                    <Anchor
                      renderRoot={(props) => <Link to="/s/$site/releases/$id" params={{ site, id: r.id }} {...props} />}
                    >
                      {r.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Badge color={statusColor(r.status)} variant="light">
                      {statusLabel(r.status)}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{t(`releases.mode.${r.atomicityMode}`)}</Table.Td>
                  <Table.Td>{fmt(r.publishAt)}</Table.Td>
                  <Table.Td>{t('releases.itemCount', { count: r.items.length })}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ))}
      {pages > 1 && (
        <Pagination
          mt="md"
          total={pages}
          value={page}
          onChange={setPage}
          aria-label={t('releases.pages')}
          getControlProps={(control) => ({ 'aria-label': `${t('items.page')} ${control}` })}
          getItemProps={(p) => ({ 'aria-label': `${t('items.page')} ${p}` })}
        />
      )}
    </>
  );
}

/** One release: its items (add with a pinned revision, remove), its schedule, publishing and the outcomes. */
export function ReleaseDetail() {
  const api = useApi();
  const queries = useQueryClient();
  const navigate = useNavigate();
  const { site, id } = useParams({ from: '/s/$site/releases/$id' });
  const key = ['release', site, id];
  const release = useQuery({
    queryKey: key,
    queryFn: async () => (await api.get<Release>(`/releases/${encodeURIComponent(id)}`, { site })).data,
  });
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<{ status: string; outcomes: Outcome[] } | null>(null);
  const publish = useMutation({
    mutationFn: async () =>
      (
        await api.request<{ release: Release; status: string; outcomes: Outcome[] }>(
          'POST',
          `/releases/${encodeURIComponent(id)}/publish`,
          { site },
        )
      ).data,
    onSuccess: (res) => {
      setConfirming(false);
      setResult({ status: res.status, outcomes: res.outcomes });
      queries.setQueryData(key, res.release);
      void queries.invalidateQueries({ queryKey: ['releases', site] });
    },
  });
  const remove = useMutation({
    mutationFn: () => api.request('DELETE', `/releases/${encodeURIComponent(id)}`, { site }),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['releases', site] });
      await navigate({ to: '/s/$site/releases', params: { site } });
    },
  });

  if (release.isError) return <ErrorNotice error={release.error} retry={() => void release.refetch()} />;
  if (release.isPending) return <Loader aria-label={t('app.loading')} />;
  const r = release.data;
  const open = isOpen(r);
  const outcomes = result?.outcomes ?? (open ? [] : r.outcomes);
  return (
    <>
      <Anchor renderRoot={(props) => <Link to="/s/$site/releases" params={{ site }} {...props} />}>
        {t('releases.back')}
      </Anchor>
      <Group mt="sm" mb="md" justify="space-between">
        <Group>
          <Title order={2}>{t('releases.heading', { name: r.name })}</Title>
          <Badge color={statusColor(r.status)} variant="light" data-testid="release-status">
            {statusLabel(r.status)}
          </Badge>
          <Text size="sm" c="dimmed">
            {t(`releases.mode.${r.atomicityMode}`)}
          </Text>
        </Group>
        <Group>
          {open && (
            <Button onClick={() => setConfirming(true)} disabled={r.items.length === 0 || r.publishing}>
              {t('releases.publish')}
            </Button>
          )}
          <Button variant="default" color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
            {t('releases.delete')}
          </Button>
        </Group>
      </Group>
      {remove.isError && <ErrorNotice error={remove.error} />}
      {r.publishing && (
        <Alert role="status" mb="md">
          {t('releases.publishing')}
        </Alert>
      )}
      {outcomes.length > 0 && <Outcomes status={result?.status ?? r.status} outcomes={outcomes} />}
      <ItemsTable site={site} release={r} />
      {open && <AddItem site={site} release={r} />}
      {open && <Schedule key={r.id} site={site} release={r} />}
      <Modal
        opened={confirming}
        onClose={() => {
          setConfirming(false);
          publish.reset();
        }}
        title={t('releases.publishTitle', { name: r.name })}
      >
        <Stack>
          <Text size="sm">{t('releases.publishBody')}</Text>
          {publish.isError && <ErrorNotice error={publish.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              {t('common.cancel')}
            </Button>
            <Button loading={publish.isPending} onClick={() => publish.mutate()}>
              {t('releases.publish')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

function Outcomes({ status, outcomes }: { status: string; outcomes: Outcome[] }) {
  const counts = outcomeCounts(outcomes);
  return (
    <Paper withBorder p="sm" mb="md">
      <Alert
        role="status"
        color={statusColor(status)}
        mb="sm"
        title={t('releases.result', { status: statusLabel(status) })}
      >
        {t('releases.counts', counts)}
      </Alert>
      <Table aria-label={t('releases.outcomes')}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t('releases.collection')}</Table.Th>
            <Table.Th scope="col">{t('releases.item')}</Table.Th>
            <Table.Th scope="col">{t('releases.outcome')}</Table.Th>
            <Table.Th scope="col">{t('releases.reason')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {outcomes.map((o) => (
            <Table.Tr key={`${o.collection}/${o.itemId}`} data-outcome={o.outcome}>
              <Table.Td>{o.collection}</Table.Td>
              <Table.Td>{o.itemId}</Table.Td>
              <Table.Td>
                <Badge
                  variant="light"
                  color={o.outcome === 'published' ? 'green' : o.outcome === 'failed' ? 'red' : 'gray'}
                >
                  {t(`releases.outcome.${o.outcome}`)}
                </Badge>
              </Table.Td>
              <Table.Td>{o.reason ?? ''}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}

function ItemsTable({ site, release }: { site: string; release: Release }) {
  const api = useApi();
  const queries = useQueryClient();
  const open = isOpen(release);
  const removeItem = useMutation({
    mutationFn: async (item: { collection: string; itemId: string }) =>
      (
        await api.request<Release>('PATCH', `/releases/${encodeURIComponent(release.id)}`, {
          site,
          body: { removeItems: [{ collection: item.collection, itemId: item.itemId }] },
        })
      ).data,
    onSuccess: (r) => queries.setQueryData(['release', site, release.id], r),
  });
  return (
    <Stack mb="md" gap="xs">
      <Title order={3}>{t('releases.items')}</Title>
      {removeItem.isError && <ErrorNotice error={removeItem.error} />}
      {release.items.length === 0 ? (
        <Text size="sm">{t('releases.noItems')}</Text>
      ) : (
        <Table aria-label={t('releases.itemsTable')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('releases.collection')}</Table.Th>
              <Table.Th scope="col">{t('releases.item')}</Table.Th>
              <Table.Th scope="col">{t('releases.targetStatus')}</Table.Th>
              <Table.Th scope="col">{t('releases.revision')}</Table.Th>
              {open && <Table.Th scope="col" />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {release.items.map((i) => (
              <Table.Tr key={`${i.collection}/${i.itemId}`}>
                <Table.Td>{i.collection}</Table.Td>
                <Table.Td>{i.itemId}</Table.Td>
                <Table.Td>{i.targetStatus}</Table.Td>
                <Table.Td>{i.revisionId ?? t('releases.live')}</Table.Td>
                {open && (
                  <Table.Td>
                    <Button
                      size="xs"
                      variant="subtle"
                      color="red"
                      aria-label={t('releases.remove', { item: `${i.collection}/${i.itemId}` })}
                      onClick={() => removeItem.mutate(i)}
                    >
                      ×
                    </Button>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

/** A label for an item in the picker: its title or name when it has one, and its id. */
function itemLabel(item: Record<string, unknown>): string {
  const id = String(item.id);
  const text = ['title', 'name', 'label', 'slug'].map((k) => item[k]).find((v) => typeof v === 'string' && v !== '');
  return typeof text === 'string' ? `${text.slice(0, 80)} (${id})` : id;
}

function AddItem({ site, release }: { site: string; release: Release }) {
  const api = useApi();
  const queries = useQueryClient();
  const permissions = usePermissions(site);
  const [collection, setCollection] = useState<string | null>(null);
  const [itemId, setItemId] = useState<string | null>(null);
  const [search, setSearch] = useState('');
  const [revisionId, setRevisionId] = useState<string>('');
  const [targetStatus, setTargetStatus] = useState('published');
  const collections = permissions.data
    ? Object.keys(permissions.data.collections)
        .filter((c) => !(Object.values(RESOURCES) as string[]).includes(c) && can(permissions.data, c, 'update'))
        .sort()
    : [];
  const items = useQuery({
    queryKey: ['release-picker', site, collection, search],
    enabled: collection !== null,
    queryFn: async () =>
      (
        await api.get<Record<string, unknown>[]>(`/items/${encodeURIComponent(collection!)}`, {
          site,
          query: { limit: 50, meta: 'none', ...(search.trim() ? { search: search.trim() } : {}) },
        })
      ).data,
    placeholderData: keepPreviousData,
  });
  const revisions = useQuery({
    queryKey: ['release-revisions', site, collection, itemId],
    enabled: collection !== null && itemId !== null,
    queryFn: async () =>
      (
        await api.get<Revision[]>(
          `/items/${encodeURIComponent(collection!)}/${encodeURIComponent(itemId!)}/revisions`,
          { site, query: { limit: 50 } },
        )
      ).data,
  });
  const add = useMutation({
    mutationFn: async () =>
      (
        await api.request<Release>('PATCH', `/releases/${encodeURIComponent(release.id)}`, {
          site,
          body: { addItems: [addItemOf({ collection: collection!, itemId: itemId!, targetStatus, revisionId })] },
        })
      ).data,
    onSuccess: (r) => {
      queries.setQueryData(['release', site, release.id], r);
      setItemId(null);
      setRevisionId('');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (collection && itemId) add.mutate();
  };
  const options = (items.data ?? []).map((i) => ({ value: String(i.id), label: itemLabel(i) }));
  if (itemId && !options.some((o) => o.value === itemId)) options.push({ value: itemId, label: itemId });
  return (
    <Paper withBorder p="sm" mb="md" component="form" onSubmit={submit} aria-label={t('releases.addTitle')}>
      <Title order={3} mb="xs">
        {t('releases.addTitle')}
      </Title>
      <Group align="flex-end">
        <Select
          label={t('releases.collection')}
          data={collections}
          value={collection}
          searchable
          onChange={(v) => {
            setCollection(v);
            setItemId(null);
            setRevisionId('');
            setSearch('');
          }}
        />
        <Select
          label={t('releases.item')}
          placeholder={t('releases.itemSearch')}
          data={options}
          value={itemId}
          searchable
          filter={({ options: o }) => o}
          searchValue={itemId ? (options.find((o) => o.value === itemId)?.label ?? search) : search}
          onSearchChange={(s) => {
            if (!itemId || s !== options.find((o) => o.value === itemId)?.label) {
              setSearch(s);
              if (itemId) setItemId(null);
            }
          }}
          disabled={collection === null}
          onChange={(v) => {
            setItemId(v);
            setRevisionId('');
          }}
          nothingFoundMessage={items.isFetching ? t('app.loading') : t('items.empty')}
          w={280}
        />
        <Select
          label={t('releases.revision')}
          data={[
            { value: '', label: t('releases.revisionLive') },
            ...(revisions.data ?? []).map((rev) => ({
              value: rev.id,
              label:
                t('releases.revisionOption', { version: rev.version, action: rev.action, time: fmt(rev.timestamp) }) +
                (rev.committed ? '' : t('releases.revisionUncommitted')),
            })),
          ]}
          value={revisionId}
          allowDeselect={false}
          disabled={itemId === null}
          onChange={(v) => setRevisionId(v ?? '')}
          w={320}
        />
        <TextInput
          label={t('releases.targetStatus')}
          value={targetStatus}
          onChange={(e) => setTargetStatus(e.currentTarget.value)}
          w={140}
        />
        <Button type="submit" loading={add.isPending} disabled={!collection || !itemId}>
          {t('releases.add')}
        </Button>
      </Group>
      {items.isError && <ErrorNotice error={items.error} />}
      {revisions.isError && <ErrorNotice error={revisions.error} />}
      {add.isError && (
        <Stack mt="sm">
          <ErrorNotice error={add.error} />
        </Stack>
      )}
    </Paper>
  );
}

const DOWS = [0, 1, 2, 3, 4, 5, 6].map((d) => ({ value: String(d), label: t(`releases.dow.${d}` as MessageKey) }));

function Schedule({ site, release }: { site: string; release: Release }) {
  const api = useApi();
  const queries = useQueryClient();
  const [at, setAt] = useState(() => toLocalInput(release.publishAt));
  const [windows, setWindows] = useState<MaintenanceWindow[]>(() => release.maintenanceWindow?.windows ?? []);
  const [saved, setSaved] = useState(false);
  const problems = windowProblems(windows);
  const save = useMutation({
    mutationFn: async () =>
      (
        await api.request<Release>('PATCH', `/releases/${encodeURIComponent(release.id)}`, {
          site,
          body: scheduleBody(at, windows),
        })
      ).data,
    onSuccess: (r) => {
      setSaved(true);
      queries.setQueryData(['release', site, release.id], r);
      void queries.invalidateQueries({ queryKey: ['releases', site] });
    },
  });
  const apiErrors = save.error instanceof ApiError ? save.error.errors : [];
  const errorAt = (...path: string[]) =>
    apiErrors.find((e) => {
      const p = (e.path ?? []).map(String).filter((s) => s !== 'body');
      return path.every((s, n) => p[n] === s);
    })?.message;
  const set = (n: number, patch: Partial<MaintenanceWindow>) =>
    setWindows((ws) => ws.map((w, i) => (i === n ? { ...w, ...patch } : w)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    if (problems.size === 0) save.mutate();
  };
  return (
    <Paper withBorder p="sm" component="form" onSubmit={submit} aria-label={t('releases.schedule')}>
      <Title order={3} mb="xs">
        {t('releases.schedule')}
      </Title>
      {saved && (
        <Alert color="green" role="status" mb="sm" withCloseButton onClose={() => setSaved(false)}>
          {t('releases.scheduleSaved')}
        </Alert>
      )}
      <TextInput
        type="datetime-local"
        label={t('releases.publishAt')}
        description={t('releases.publishAtHelp')}
        value={at}
        onChange={(e) => setAt(e.currentTarget.value)}
        error={errorAt('publishAt')}
        w={280}
      />
      <Text size="sm" fw={500} mt="sm">
        {t('releases.windows')}
      </Text>
      {windows.length === 0 && (
        <Text size="sm" c="dimmed">
          {t('releases.noWindows')}
        </Text>
      )}
      {windows.map((w, n) => (
        <Group key={n} align="flex-end" mt="xs" aria-label={t('releases.window', { n: n + 1 })} role="group">
          <Select
            label={t('releases.dow', { n: n + 1 })}
            data={DOWS}
            value={String(w.dow)}
            allowDeselect={false}
            onChange={(v) => v !== null && set(n, { dow: Number(v) })}
            w={160}
          />
          <TextInput
            label={t('releases.start', { n: n + 1 })}
            value={w.start}
            onChange={(e) => set(n, { start: e.currentTarget.value })}
            error={
              problems.get(n) === 'start'
                ? t('releases.windowInvalid')
                : errorAt('maintenanceWindow', 'windows', String(n), 'start')
            }
            w={200}
          />
          <TextInput
            label={t('releases.end', { n: n + 1 })}
            value={w.end}
            onChange={(e) => set(n, { end: e.currentTarget.value })}
            error={
              problems.get(n) === 'end'
                ? t('releases.windowInvalid')
                : errorAt('maintenanceWindow', 'windows', String(n), 'end')
            }
            w={200}
          />
          <ActionIcon
            variant="subtle"
            color="red"
            size="lg"
            aria-label={t('releases.removeWindow', { n: n + 1 })}
            onClick={() => setWindows((ws) => ws.filter((_, i) => i !== n))}
          >
            ×
          </ActionIcon>
        </Group>
      ))}
      <Group mt="sm">
        <Button variant="default" onClick={() => setWindows((ws) => [...ws, { dow: 1, start: '02:00', end: '04:00' }])}>
          {t('releases.addWindow')}
        </Button>
        <Button type="submit" loading={save.isPending}>
          {t('releases.saveSchedule')}
        </Button>
      </Group>
      {save.isError && (
        <Stack mt="sm">
          <ErrorNotice error={save.error} />
        </Stack>
      )}
    </Paper>
  );
}
