import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { ApiClient } from './api/client.ts';
import { payloadOf, unhandledCount, type InboxEntry, type NotificationPayload } from './inbox.ts';
import { useApi } from './session.tsx';

/** The realtime connection's state, as the inbox shows it. */
export type LiveState = 'connecting' | 'live' | 'offline';

export interface LiveInbox {
  state: LiveState;
  /** Notifications that arrived over the stream since the site was opened, newest first. */
  live: NotificationPayload[];
  /** Ids marked handled here (until the next fetch knows). */
  handledIds: ReadonlySet<string>;
  markedHandled(id: string): void;
  unhandled: number;
}

const LiveInboxContext = createContext<LiveInbox | null>(null);

export function useLiveInbox(): LiveInbox {
  const live = useContext(LiveInboxContext);
  if (!live) throw new Error('LiveInboxProvider missing');
  return live;
}

interface Ticket {
  ticket: string;
  expiresAt: string;
  sse: string;
}

/** The fallback poll of the spec (when the stream is down, the badge still follows within a minute). */
const POLL_MS = 60_000;
const RETRY_MS = [1_000, 3_000, 10_000, 30_000];

/**
 * One realtime connection per open site: a one-minute ticket (`POST /realtime/ticket`, with the token and the site
 * as every call), then an EventSource on the ticket's SSE address (an EventSource sends no headers: the ticket in the
 * query is its credential). A ticket opens one connection, so every reconnection asks for a new one and resumes
 * after the last frame seen (`lastEventId`).
 */
export function LiveInboxProvider({ site, children }: { site: string; children: ReactNode }) {
  const api = useApi();
  const queries = useQueryClient();
  const [state, setState] = useState<LiveState>('connecting');
  const [live, setLive] = useState<NotificationPayload[]>([]);
  const [handledIds, setHandledIds] = useState<ReadonlySet<string>>(new Set());

  useEffect(() => {
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let failures = 0;
    let lastEventId: string | null = null;
    setLive([]);
    setHandledIds(new Set());

    const connect = async () => {
      if (stopped) return;
      setState('connecting');
      let ticket: Ticket;
      try {
        ticket = (await api.request<Ticket>('POST', '/realtime/ticket', { site })).data;
      } catch {
        return retry();
      }
      if (stopped) return;
      const url = lastEventId ? `${ticket.sse}&lastEventId=${encodeURIComponent(lastEventId)}` : ticket.sse;
      const es = new EventSource(url);
      source = es;
      es.addEventListener('ready', () => {
        failures = 0;
        setState('live');
      });
      es.addEventListener('notification', (e: MessageEvent<string>) => {
        if (e.lastEventId) lastEventId = e.lastEventId;
        let data: unknown;
        try {
          data = JSON.parse(e.data);
        } catch {
          return;
        }
        const n = payloadOf(data);
        if (!n) return;
        setLive((prev) => (prev.some((p) => p.id === n.id) ? prev : [n, ...prev]));
        void queries.invalidateQueries({ queryKey: ['inbox', site] });
      });
      es.addEventListener('reset', () => void queries.invalidateQueries({ queryKey: ['inbox', site] }));
      es.addEventListener('closed', () => {
        es.close();
        retry();
      });
      // The browser would reconnect with the spent ticket: close, and come back with a new one.
      es.onerror = () => {
        es.close();
        retry();
      };
    };
    const retry = () => {
      if (stopped) return;
      source = null;
      setState('offline');
      const wait = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!;
      failures++;
      clearTimeout(timer);
      timer = setTimeout(() => void connect(), wait);
    };
    void connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      source?.close();
    };
  }, [api, queries, site]);

  const count = useUnhandled(api, site);
  const markedHandled = useCallback((id: string) => setHandledIds((prev) => new Set(prev).add(id)), []);
  const value = useMemo<LiveInbox>(
    () => ({
      state,
      live,
      handledIds,
      markedHandled,
      unhandled: count.data ? unhandledCount(count.data.total, count.data.ids, live, handledIds) : 0,
    }),
    [state, live, handledIds, markedHandled, count.data],
  );
  return <LiveInboxContext value={value}>{children}</LiveInboxContext>;
}

/** The unhandled total and the ids it counted (first 200), polled every minute as the spec's fallback. */
function useUnhandled(api: ApiClient, site: string) {
  return useQuery({
    queryKey: ['inbox', site, 'unhandled'],
    queryFn: async () => {
      const res = await api.get<InboxEntry[], { total: number }>('/notifications', {
        site,
        query: { unhandled: 'true', limit: 200 },
      });
      return { total: res.meta?.total ?? res.data.length, ids: res.data.map((n) => n.id) };
    },
    refetchInterval: POLL_MS,
  });
}
