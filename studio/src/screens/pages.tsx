import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  List,
  Loader,
  Pagination,
  Select,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client.ts';
import { t } from '../i18n/en.ts';
import { pageCount } from '../items-table.ts';
import {
  deliveryPath,
  parseLayout,
  placeErrors,
  SLUG_PATTERN,
  type PageRecord,
  type PlacedError,
} from '../releases.ts';
import { useApi } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';

const PAGE = 25;

/** The site's pages, a page at a time. */
export function Pages() {
  const api = useApi();
  const { site } = useParams({ from: '/s/$site/pages' });
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ['pages', site, page],
    queryFn: () => api.get<PageRecord[], { total: number }>('/pages', { site, query: { page, limit: PAGE } }),
    placeholderData: keepPreviousData,
  });
  const pages = pageCount(list.data?.meta?.total, PAGE);
  return (
    <>
      <Group justify="space-between" mb="md">
        <Title order={2}>{t('pages.title')}</Title>
        <Button renderRoot={(props) => <Link to="/s/$site/pages/new" params={{ site }} {...props} />}>
          {t('pages.new')}
        </Button>
      </Group>
      {list.isError && <ErrorNotice error={list.error} retry={() => void list.refetch()} />}
      {list.isPending && <Loader aria-label={t('app.loading')} />}
      {list.data &&
        (list.data.data.length === 0 ? (
          <Text>{t('pages.none')}</Text>
        ) : (
          <Table striped highlightOnHover aria-label={t('pages.table')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('pages.slug')}</Table.Th>
                <Table.Th scope="col">{t('pages.titleField')}</Table.Th>
                <Table.Th scope="col">{t('pages.status')}</Table.Th>
                <Table.Th scope="col">{t('pages.updated')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.data.map((p) => (
                <Table.Tr key={p.id}>
                  <Table.Td>
                    <Anchor
                      aria-label={t('pages.open', { slug: p.slug })}
                      renderRoot={(props) => <Link to="/s/$site/pages/$id" params={{ site, id: p.id }} {...props} />}
                    >
                      {p.slug}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{p.title}</Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={p.status === 'published' ? 'green' : 'gray'}>
                      {t(`pages.status.${p.status}`)}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{new Date(p.updatedAt).toLocaleString()}</Table.Td>
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
          aria-label={t('pages.list')}
          getControlProps={(control) => ({ 'aria-label': `${t('items.page')} ${control}` })}
          getItemProps={(p) => ({ 'aria-label': `${t('items.page')} ${p}` })}
        />
      )}
    </>
  );
}

export function NewPage() {
  const { site } = useParams({ from: '/s/$site/pages/new' });
  return <PageForm site={site} page={null} />;
}

export function EditPage() {
  const api = useApi();
  const { site, id } = useParams({ from: '/s/$site/pages/$id' });
  const page = useQuery({
    queryKey: ['page', site, id],
    queryFn: async () => (await api.get<PageRecord>(`/pages/${encodeURIComponent(id)}`, { site })).data,
  });
  if (page.isError) return <ErrorNotice error={page.error} retry={() => void page.refetch()} />;
  if (page.isPending) return <Loader aria-label={t('app.loading')} />;
  return <PageForm key={page.data.version} site={site} page={page.data} />;
}

const layoutText = (layout: PageRecord['layoutConfig']) => (layout ? JSON.stringify(layout, null, 2) : '');

/** A page's slug, title, status and layout JSON; the API's errors at their fields (the layout's at their paths). */
function PageForm({ site, page }: { site: string; page: PageRecord | null }) {
  const api = useApi();
  const queries = useQueryClient();
  const navigate = useNavigate();
  const [slug, setSlug] = useState(page?.slug ?? '');
  const [title, setTitle] = useState(page?.title ?? '');
  const [status, setStatus] = useState<PageRecord['status']>(page?.status ?? 'published');
  const [layout, setLayout] = useState(layoutText(page?.layoutConfig ?? null));
  const [local, setLocal] = useState<PlacedError[]>([]);
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>) =>
      page
        ? (await api.request<PageRecord>('PATCH', `/pages/${encodeURIComponent(page.id)}`, { site, body })).data
        : (await api.request<PageRecord>('POST', '/pages', { site, body })).data,
    onSuccess: async (saved) => {
      await queries.invalidateQueries({ queryKey: ['pages', site] });
      if (page) {
        setSaved(true);
        queries.setQueryData(['page', site, page.id], saved);
      } else await navigate({ to: '/s/$site/pages/$id', params: { site, id: saved.id } });
    },
  });
  const errors = [...local, ...(save.error instanceof ApiError ? placeErrors(save.error.errors) : [])];
  const at = (field: PlacedError['field']) => errors.filter((e) => e.field === field);
  const first = (field: PlacedError['field']) => at(field)[0]?.message;
  const layoutErrors = at('layoutConfig');
  const other = errors.filter((e) => e.field === '');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    save.reset();
    const problems: PlacedError[] = [];
    if (!SLUG_PATTERN.test(slug)) problems.push({ field: 'slug', at: '', message: t('pages.slugInvalid') });
    const parsed = parseLayout(layout);
    if (!parsed.ok) problems.push({ field: 'layoutConfig', at: '', message: t('pages.layoutInvalid') });
    setLocal(problems);
    if (problems.length > 0 || !parsed.ok) return;
    save.mutate({ slug, title, status, layoutConfig: parsed.value });
  };
  const preview = page ? deliveryPath(site, page.slug) : null;
  return (
    <>
      <Anchor renderRoot={(props) => <Link to="/s/$site/pages" params={{ site }} {...props} />}>
        {t('pages.back')}
      </Anchor>
      <Title order={2} mt="sm" mb="md">
        {page ? t('pages.editTitle', { title: page.title }) : t('pages.newTitle')}
      </Title>
      {page && preview && (
        <Group mb="md">
          {page.status === 'published' ? (
            <Anchor href={preview} target="_blank" rel="noopener noreferrer">
              {t('pages.preview')}
            </Anchor>
          ) : (
            <Text size="sm" c="dimmed">
              {t('pages.previewDraft')}
            </Text>
          )}
          <Text size="sm" c="dimmed" ff="monospace">
            {preview}
          </Text>
        </Group>
      )}
      {saved && (
        <Alert color="green" role="status" mb="md" withCloseButton onClose={() => setSaved(false)}>
          {t('pages.saved')}
        </Alert>
      )}
      <Stack
        component="form"
        onSubmit={submit}
        maw={720}
        aria-label={page ? t('pages.editTitle', { title: page.title }) : t('pages.newTitle')}
      >
        <TextInput
          label={t('pages.slug')}
          description={t('pages.slugHelp')}
          required
          value={slug}
          onChange={(e) => setSlug(e.currentTarget.value)}
          error={first('slug')}
        />
        <TextInput
          label={t('pages.titleField')}
          required
          value={title}
          onChange={(e) => setTitle(e.currentTarget.value)}
          error={first('title')}
        />
        <Select
          label={t('pages.status')}
          data={(['published', 'draft'] as const).map((s) => ({ value: s, label: t(`pages.status.${s}`) }))}
          value={status}
          allowDeselect={false}
          onChange={(v) => v && setStatus(v as PageRecord['status'])}
          error={first('status')}
        />
        <Textarea
          label={t('pages.layout')}
          description={t('pages.layoutHelp')}
          value={layout}
          onChange={(e) => setLayout(e.currentTarget.value)}
          autosize
          minRows={8}
          maxRows={30}
          ff="monospace"
          spellCheck={false}
          error={layoutErrors.length > 0 ? t('pages.layoutErrors') : undefined}
        />
        {layoutErrors.length > 0 && (
          <List id="layout-errors" size="sm" c="red" aria-label={t('pages.layoutErrors')}>
            {layoutErrors.map((e, n) => (
              <List.Item key={n} data-path={e.at}>
                {e.at ? (
                  <>
                    <Text span ff="monospace" size="sm">
                      {e.at}
                    </Text>
                    {': '}
                  </>
                ) : null}
                {e.message}
              </List.Item>
            ))}
          </List>
        )}
        {other.length > 0 && save.isError && <ErrorNotice error={save.error} />}
        <Group>
          <Button type="submit" loading={save.isPending}>
            {page ? t('pages.save') : t('pages.create')}
          </Button>
        </Group>
      </Stack>
    </>
  );
}
