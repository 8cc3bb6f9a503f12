import { Alert, Badge, Button, Group, Loader, Modal, Pagination, Stack, Table, Text, Timeline } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { itemPath, revisionChanges, showField, type ItemRef, type Revision, type Values } from '../history.ts';
import { t } from '../i18n/en.ts';
import { pageCount } from '../items-table.ts';
import { useApi } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';

const PAGE = 10;

/** The revision timeline of an item, newest first: who, when, which fields changed (old → new), and revert. */
export function ItemHistory(ref: ItemRef) {
  const api = useApi();
  const queries = useQueryClient();
  const [page, setPage] = useState(1);
  const [reverting, setReverting] = useState<Revision | null>(null);
  // The version the dialog asks about, kept while it closes, so it never shows (or is named by) an empty title.
  const [asked, setAsked] = useState(0);
  const [reverted, setReverted] = useState<number | null>(null);
  // One revision more than the page shows: the oldest one shown needs the one before it for its diff.
  const list = useQuery({
    queryKey: ['revisions', ref.site, ref.collection, ref.id, page],
    queryFn: () =>
      api.get<Revision[], { total: number }>(itemPath(ref, '/revisions'), {
        site: ref.site,
        query: { limit: PAGE + 1, offset: (page - 1) * PAGE },
      }),
    placeholderData: keepPreviousData,
  });
  const revert = useMutation({
    mutationFn: (r: Revision) =>
      api.request<Values>('POST', itemPath(ref, '/revert'), { site: ref.site, body: { revisionId: r.id } }),
    onSuccess: async (_res, r) => {
      setReverting(null);
      setReverted(r.version);
      setPage(1);
      await queries.invalidateQueries({ queryKey: ['revisions', ref.site, ref.collection, ref.id] });
      await queries.invalidateQueries({ queryKey: ['item', ref.site, ref.collection, ref.id] });
    },
  });

  if (list.isError) return <ErrorNotice error={list.error} retry={() => void list.refetch()} />;
  if (list.isPending) return <Loader aria-label={t('app.loading')} />;
  const all = list.data.data;
  const shown = all.slice(0, PAGE);
  const latest = page === 1 ? shown[0]?.version : undefined;
  const pages = pageCount(list.data.meta?.total, PAGE);
  const who = (r: Revision) => (r.actor.id === api.user?.id ? t('history.you') : `${r.actor.type} ${r.actor.id}`);

  return (
    <>
      {reverted !== null && (
        <Alert color="green" mb="md" role="status" withCloseButton onClose={() => setReverted(null)}>
          {t('history.reverted', { version: reverted })}
        </Alert>
      )}
      {shown.length === 0 ? (
        <Text>{t('history.empty')}</Text>
      ) : (
        <Timeline bulletSize={14} lineWidth={2} active={-1}>
          {shown.map((r, i) => {
            const changes = revisionChanges(r, all[i + 1]?.data ?? null);
            return (
              <Timeline.Item
                key={r.id}
                title={
                  <Group gap="xs">
                    <Text fw={600}>{t('history.revision', { version: r.version, action: r.action })}</Text>
                    {!r.committed && <Badge color="gray">{t('history.uncommitted')}</Badge>}
                  </Group>
                }
              >
                <Stack gap="xs" data-revision={r.version}>
                  <Text size="sm" c="dimmed">
                    {t('history.by', { actor: who(r), time: new Date(r.timestamp).toLocaleString() })}
                  </Text>
                  {changes.length === 0 ? (
                    <Text size="sm">{t('history.noChanges')}</Text>
                  ) : (
                    <Table withTableBorder aria-label={t('history.changes', { version: r.version })}>
                      <Table.Thead>
                        <Table.Tr>
                          <Table.Th scope="col">{t('item.field')}</Table.Th>
                          <Table.Th scope="col">{t('history.before')}</Table.Th>
                          <Table.Th scope="col">{t('history.after')}</Table.Th>
                        </Table.Tr>
                      </Table.Thead>
                      <Table.Tbody>
                        {changes.map((c) => (
                          <Table.Tr key={c.field} data-kind={c.kind}>
                            <Table.Th scope="row">{c.field}</Table.Th>
                            <Table.Td>
                              <Text size="sm" td={c.before == null ? undefined : 'line-through'} c="red.8">
                                {showField(c.before)}
                              </Text>
                            </Table.Td>
                            <Table.Td>
                              <Text size="sm" c="teal.9">
                                {showField(c.after)}
                              </Text>
                            </Table.Td>
                          </Table.Tr>
                        ))}
                      </Table.Tbody>
                    </Table>
                  )}
                  {r.version !== latest && r.committed && (
                    <Group>
                      <Button
                        size="xs"
                        variant="light"
                        onClick={() => {
                          setReverting(r);
                          setAsked(r.version);
                        }}
                      >
                        {t('history.revert', { version: r.version })}
                      </Button>
                    </Group>
                  )}
                </Stack>
              </Timeline.Item>
            );
          })}
        </Timeline>
      )}
      {pages > 1 && (
        <Pagination
          mt="md"
          total={pages}
          value={page}
          onChange={setPage}
          aria-label={t('history.pages')}
          getControlProps={(control) => ({ 'aria-label': `${t('items.page')} ${control}` })}
          getItemProps={(p) => ({ 'aria-label': `${t('items.page')} ${p}` })}
        />
      )}
      {/* No scroll lock: its run-time <style> (react-remove-scroll) carries no nonce, and the CSP refuses it. */}
      <Modal
        opened={reverting !== null}
        onClose={() => {
          setReverting(null);
          revert.reset();
        }}
        title={t('history.revertTitle', { version: asked })}
      >
        <Stack>
          <Text size="sm">{t('history.revertBody', { version: asked })}</Text>
          {revert.isError && <ErrorNotice error={revert.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setReverting(null)}>
              {t('common.cancel')}
            </Button>
            <Button loading={revert.isPending} onClick={() => reverting && revert.mutate(reverting)}>
              {t('history.revertConfirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
