import { Group, Loader, Pagination, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { t } from '../i18n/en.ts';
import { columnsOf, PAGE_SIZE, pageCount, showValue } from '../items-table.ts';
import { useApi } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';

/** One collection's items, a page at a time (the page is in the address, so a reload keeps it). */
export function Items() {
  const api = useApi();
  const { site, collection } = useParams({ from: '/s/$site/collections/$collection' });
  const { page } = useSearch({ from: '/s/$site/collections/$collection' });
  const navigate = useNavigate({ from: '/s/$site/collections/$collection' });
  const list = useQuery({
    queryKey: ['items', site, collection, page],
    queryFn: () =>
      api.get<Record<string, unknown>[], { total?: number }>(`/items/${encodeURIComponent(collection)}`, {
        site,
        query: { limit: PAGE_SIZE, page, meta: 'total_count' },
      }),
    placeholderData: keepPreviousData,
  });
  const title = (
    <Title order={2} mb="md">
      {t('items.title', { collection })}
    </Title>
  );
  if (list.isError)
    return (
      <>
        {title}
        <ErrorNotice error={list.error} retry={() => void list.refetch()} />
      </>
    );
  if (list.isPending)
    return (
      <>
        {title}
        <Loader aria-label={t('app.loading')} />
      </>
    );
  const rows = list.data.data;
  const columns = columnsOf(rows);
  const total = list.data.meta?.total;
  const pages = pageCount(total, PAGE_SIZE);
  return (
    <>
      {title}
      {rows.length === 0 ? (
        <Text>{t('items.empty')}</Text>
      ) : (
        <Table.ScrollContainer minWidth={600}>
          <Table striped highlightOnHover aria-label={t('items.table', { collection })}>
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
            onChange={(p) => void navigate({ search: { page: p } })}
            getControlProps={(control) => ({ 'aria-label': `${t('items.page')} ${control}` })}
            getItemProps={(p) => ({ 'aria-label': `${t('items.page')} ${p}` })}
          />
        )}
      </Group>
    </>
  );
}
