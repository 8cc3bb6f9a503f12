import type { Feature } from '../../deps.ts';
import { realtimeRoutes } from './http/realtime.routes.ts';

/** Realtime: tickets, and the SSE and WebSocket connections of each site's room (notifications, live items). */
export const realtimeFeature: Feature = {
  name: 'realtime',
  projectors: [],
  routes: realtimeRoutes,
};
