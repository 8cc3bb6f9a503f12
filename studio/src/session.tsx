import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useState } from 'react';
import type { ApiClient, Profile } from './api/client.ts';
import type { PermissionMatrix } from './nav.ts';

export const ApiContext = createContext<ApiClient | null>(null);

export function useApi(): ApiClient {
  const api = useContext(ApiContext);
  if (!api) throw new Error('ApiContext missing');
  return api;
}

export type SessionState = { status: 'checking' } | { status: 'anonymous' } | { status: 'signed-in'; user: Profile };

/** The session as the page knows it: checked once at load (refresh cookie), then following sign-in and sign-out. */
export function useSession(): SessionState {
  const api = useApi();
  const queries = useQueryClient();
  const [state, setState] = useState<SessionState>(() =>
    api.user ? { status: 'signed-in', user: api.user } : { status: 'checking' },
  );
  useEffect(() => {
    const off = api.subscribe((user) => {
      if (!user) queries.clear();
      setState(user ? { status: 'signed-in', user } : { status: 'anonymous' });
    });
    if (!api.signedIn)
      void api.restore().then((ok) => {
        if (!ok) setState({ status: 'anonymous' });
      });
    return () => {
      off();
    };
  }, [api, queries]);
  return state;
}

/** The caller's profile with memberships (site id → role). */
export interface Me extends Profile {
  instanceAdmin: boolean;
  sites: Record<string, string>;
  amr: string[];
}

export function useMe() {
  const api = useApi();
  return useQuery({ queryKey: ['me'], queryFn: async () => (await api.get<Me>('/auth/me')).data });
}

export function usePermissions(site: string) {
  const api = useApi();
  return useQuery({
    queryKey: ['permissions', site],
    queryFn: async () => (await api.get<PermissionMatrix>('/permissions/me', { site })).data,
  });
}
