import { Anchor, Group, Loader, Pagination, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { asOfParam } from '../history.ts';
import { t } from '../i18n/en.ts';
import { columnsOf, PAGE_SIZE, pageCount, showValue } from '../items-table.ts';
import { useApi } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';
import { AsOfInput } from './item-time-travel.tsx';

/** A collection's items as they were at a chosen moment (`asOf`), paged; the moment and page are in the address. */
export function ItemsAsOf() {
  const api = useApi();
  const { site, collection } = useParams({ from: '/s/$site/collections/$collection/as-of' });
  const { at, page } = useSearch({ from: '/s/$site/collections/$collection/as-of' });
  const navigate = useNavigate({ from: '/s/$site/collections/$collection/as-of' });
  const asOf = asOfParam(at);
  const list = useQuery({
    queryKey: ['items', site, collection, { asOf, page }],
    queryFn: () =>
      api.get<Record<string, unknown>[], { total?: number }>(`/items/${encodeURIComponent(collection)}`, {
        site,
        query: { limit: PAGE_SIZE, page, meta: 'total_count', asOf: asOf ?? undefined },
      }),
    placeholderData: keepPreviousData,
  });
  const rows = list.data?.data ?? [];
  const columns = columnsOf(rows);
  const total = list.data?.meta?.total;
  const pages = pageCount(total, PAGE_SIZE);
  return (
    <>
      <Anchor
        size="sm"
        renderRoot={(p) => (
          <Link to="/s/$site/collections/$collection" params={{ site, collection }} search={{ page: 1 }} {...p} />
        )}
      >
        {t('item.back', { collection })}
      </Anchor>
      <Title order={2} my="md">
        {t('asOf.listTitle', { collection })}
      </Title>
      <AsOfInput
        value={at}
        onChange={(next) => void navigate({ search: { at: next, page: 1 }, replace: true })}
        onNow={() => void navigate({ search: { at: '', page: 1 } })}
      />
      {list.isError && <ErrorNotice error={list.error} retry={() => void list.refetch()} />}
      {list.isPending && <Loader aria-label={t('app.loading')} />}
      {list.data && !list.isError && (
        <>
          {list.isPlaceholderData ? (
            <Loader size="xs" mb="xs" aria-label={t('app.loading')} />
          ) : (
            <Text size="sm" c="dimmed" mb="xs" role="status">
              {asOf ? t('asOf.showing', { time: new Date(asOf).toLocaleString() }) : t('asOf.current')}
            </Text>
          )}
          {rows.length === 0 ? (
            <Text>{t('items.empty')}</Text>
          ) : (
            <Table.ScrollContainer minWidth={600}>
              <Table striped aria-label={t('asOf.listTitle', { collection })}>
                <Table.Thead>
                  <Table.Tr>
                    {columns.map((c) => (
                      <Table.Th key={c} scope="col">
                        {c}
                      </Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rows.map((row, i) => (
                    <Table.Tr key={showValue(row.id) || i}>
                      {columns.map((c) => (
                        <Table.Td key={c}>{showValue(Object.hasOwn(row, c) ? row[c] : undefined)}</Table.Td>
                      ))}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          <Group justify="space-between" mt="md">
            {total !== undefined && <Text size="sm">{t('items.total', { count: total })}</Text>}
            {pages > 1 && (
              <Pagination
                total={pages}
                value={page}
                onChange={(p) => void navigate({ search: { at, page: p } })}
                getControlProps={(control) => ({ 'aria-label': `${t('items.page')} ${control}` })}
                getItemProps={(p) => ({ 'aria-label': `${t('items.page')} ${p}` })}
              />
            )}
          </Group>
        </>
      )}
    </>
  );
}
