import { Alert, Badge, Button, Card, Group, Loader, Pagination, Stack, Switch, Text, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { ApiError } from '../api/client.ts';
import { t } from '../i18n/en.ts';
import { mergeInbox, type InboxEntry } from '../inbox.ts';
import { pageCount } from '../items-table.ts';
import { useLiveInbox } from '../live-inbox.tsx';
import { browserPushOffer, currentSubscription, subscribe, unsubscribe } from '../push.ts';
import { useApi } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';

const PAGE = 25;
const COLORS = { info: 'blue', warning: 'orange', critical: 'red' } as const;

/** The caller's notifications on the site, newest first: live arrivals on top, mark handled, Web Push. */
export function Inbox() {
  const api = useApi();
  const { site } = useParams({ from: '/s/$site' });
  const queries = useQueryClient();
  const inbox = useLiveInbox();
  const [page, setPage] = useState(1);
  const [onlyUnhandled, setOnlyUnhandled] = useState(false);
  const list = useQuery({
    queryKey: ['inbox', site, 'list', page, onlyUnhandled],
    queryFn: () =>
      api.get<InboxEntry[], { total: number }>('/notifications', {
        site,
        query: { limit: PAGE, offset: (page - 1) * PAGE, unhandled: String(onlyUnhandled) },
      }),
    placeholderData: keepPreviousData,
  });
  const [failed, setFailed] = useState<{ id: string; error: unknown } | null>(null);
  const handle = useMutation({
    mutationFn: (id: string) =>
      api.request<InboxEntry>('PATCH', `/notifications/${encodeURIComponent(id)}`, { site, body: { handled: true } }),
    onSuccess: async (_res, id) => {
      setFailed(null);
      inbox.markedHandled(id);
      await queries.invalidateQueries({ queryKey: ['inbox', site] });
    },
    onError: (error, id) => setFailed({ id, error }),
  });

  const rows = list.data
    ? mergeInbox(list.data.data, inbox.live, inbox.handledIds, page === 1).filter((n) => !onlyUnhandled || !n.handled)
    : [];

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end">
        <Title order={2}>{t('inbox.title')}</Title>
        <Badge
          variant="light"
          color={inbox.state === 'live' ? 'green' : inbox.state === 'offline' ? 'gray' : 'yellow'}
          data-testid="inbox-live"
        >
          {t(`inbox.state.${inbox.state}`)}
        </Badge>
      </Group>
      <PushPanel site={site} />
      <Switch
        label={t('inbox.onlyUnhandled')}
        checked={onlyUnhandled}
        onChange={(e) => {
          setOnlyUnhandled(e.currentTarget.checked);
          setPage(1);
        }}
      />
      {list.isPending && <Loader aria-label={t('app.loading')} />}
      {list.isError && <ErrorNotice error={list.error} retry={() => void list.refetch()} />}
      {list.data && rows.length === 0 && <Text c="dimmed">{t('inbox.empty')}</Text>}
      {rows.length > 0 && (
        <Stack gap="xs" component="ul" aria-label={t('inbox.list')} p={0} m={0} style={{ listStyle: 'none' }}>
          {rows.map((n) => (
            <Card key={n.id} component="li" withBorder padding="sm" aria-label={n.title}>
              <Group justify="space-between" align="flex-start" wrap="nowrap">
                <Stack gap={2}>
                  <Group gap="xs">
                    <Badge color={COLORS[n.severity]} variant="light">
                      {n.severity}
                    </Badge>
                    <Text fw={600}>{n.title}</Text>
                    {n.handled && (
                      <Badge color="gray" variant="outline">
                        {t('inbox.handled')}
                      </Badge>
                    )}
                  </Group>
                  {n.body && <Text size="sm">{n.body}</Text>}
                  <Text size="xs" c="dimmed">
                    {n.kind} · {new Date(n.ts).toLocaleString()}
                  </Text>
                </Stack>
                {!n.handled && (
                  <Button
                    size="xs"
                    variant="light"
                    aria-label={t('inbox.markHandled', { title: n.title })}
                    loading={handle.isPending && handle.variables === n.id}
                    onClick={() => handle.mutate(n.id)}
                  >
                    {t('inbox.markHandledShort')}
                  </Button>
                )}
              </Group>
              {failed?.id === n.id && <ErrorNotice error={failed.error} />}
            </Card>
          ))}
        </Stack>
      )}
      {list.data && (list.data.meta?.total ?? 0) > PAGE && (
        <Pagination
          aria-label={t('inbox.pages')}
          total={pageCount(list.data.meta?.total, PAGE)}
          value={page}
          onChange={setPage}
        />
      )}
    </Stack>
  );
}

/** Web Push: offered only when the service has VAPID keys; says so when this browser cannot subscribe. */
function PushPanel({ site }: { site: string }) {
  const api = useApi();
  const key = useQuery({
    queryKey: ['push-key'],
    queryFn: async () => {
      try {
        return (await api.get<{ publicKey: string }>('/push/vapid-public-key', { site })).data.publicKey;
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) return null;
        throw e;
      }
    },
    staleTime: Infinity,
  });
  const offer = key.data === undefined ? 'off' : browserPushOffer(key.data);
  const existing = useQuery({
    queryKey: ['push-subscription', site],
    queryFn: () => currentSubscription(),
    enabled: offer === 'available',
  });
  const queries = useQueryClient();
  const toggle = useMutation({
    mutationFn: async () => {
      if (existing.data) await unsubscribe(api, site, existing.data);
      else await subscribe(api, site, key.data!);
    },
    onSettled: () => void queries.invalidateQueries({ queryKey: ['push-subscription', site] }),
  });

  if (key.isError) return <ErrorNotice error={key.error} retry={() => void key.refetch()} />;
  if (offer === 'off') return null;
  if (offer === 'unsupported')
    return (
      <Alert color="gray" data-testid="push-unsupported">
        {t('push.unsupported')}
      </Alert>
    );
  return (
    <Stack gap={4} align="flex-start">
      <Button variant="default" size="xs" loading={toggle.isPending} onClick={() => toggle.mutate()}>
        {existing.data ? t('push.unsubscribe') : t('push.subscribe')}
      </Button>
      {existing.data && (
        <Text size="xs" c="dimmed">
          {t('push.subscribed')}
        </Text>
      )}
      {toggle.isError && (
        <Alert color="red" role="alert" data-testid="push-error">
          {toggle.error instanceof ApiError
            ? toggle.error.message
            : toggle.error.message === 'notifications-denied'
              ? t('push.denied')
              : t('push.failed', { reason: toggle.error.message })}
        </Alert>
      )}
    </Stack>
  );
}
