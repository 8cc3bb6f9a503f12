import { Anchor, Loader, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { t } from '../i18n/en.ts';
import { can } from '../nav.ts';
import { useApi, usePermissions } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';

interface CollectionRecord {
  name: string;
  displayName: string | null;
  singleton: boolean;
}

/** The site's collections the caller may read. */
export function Collections() {
  const api = useApi();
  const { site } = useParams({ from: '/s/$site/collections' });
  const permissions = usePermissions(site);
  const list = useQuery({
    queryKey: ['collections', site],
    queryFn: async () => (await api.get<CollectionRecord[]>('/collections', { site })).data,
  });
  if (list.isError) return <ErrorNotice error={list.error} retry={() => void list.refetch()} />;
  if (list.isPending || permissions.isPending) return <Loader aria-label={t('app.loading')} />;
  const readable = list.data.filter((c) => permissions.data && can(permissions.data, c.name, 'read'));
  return (
    <>
      <Title order={2} mb="md">
        {t('collections.title')}
      </Title>
      {readable.length === 0 ? (
        <Text>{t('collections.none')}</Text>
      ) : (
        <Table striped highlightOnHover aria-label={t('collections.title')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('collections.name')}</Table.Th>
              <Table.Th scope="col">{t('collections.displayName')}</Table.Th>
              <Table.Th scope="col">{t('collections.singleton')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {readable.map((c) => (
              <Table.Tr key={c.name}>
                <Table.Td>
                  <Anchor
                    renderRoot={(props) => (
                      <Link
                        to="/s/$site/collections/$collection"
                        params={{ site, collection: c.name }}
                        search={{ page: 1 }}
                        {...props}
                      />
                    )}
                  >
                    {c.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>{c.displayName ?? ''}</Table.Td>
                <Table.Td>{c.singleton ? t('common.yes') : t('common.no')}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </>
  );
}
