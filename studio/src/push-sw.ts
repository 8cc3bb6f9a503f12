/**
 * The studio's service worker, for Web Push only (no caching, no fetch handler): a push's payload is the spec's
 * notification JSON, shown as a system notification; a click opens the studio.
 */

interface PushEventLike extends Event {
  data: { json(): unknown } | null;
  waitUntil(p: Promise<unknown>): void;
}
interface NotificationEventLike extends Event {
  notification: { close(): void };
  waitUntil(p: Promise<unknown>): void;
}
interface WorkerScope {
  registration: ServiceWorkerRegistration;
  location: Location;
  clients: { openWindow(url: string): Promise<unknown> };
  addEventListener(type: 'push', fn: (e: PushEventLike) => void): void;
  addEventListener(type: 'notificationclick', fn: (e: NotificationEventLike) => void): void;
}

const scope = self as unknown as WorkerScope;

scope.addEventListener('push', (e) => {
  let data: { title?: unknown; body?: unknown; id?: unknown } = {};
  try {
    data = (e.data?.json() ?? {}) as typeof data;
  } catch {
    // not JSON: a plain notice
  }
  const title = typeof data.title === 'string' ? data.title : 'Studio';
  const body = typeof data.body === 'string' ? data.body : '';
  e.waitUntil(
    scope.registration.showNotification(title, { body, tag: typeof data.id === 'string' ? data.id : undefined }),
  );
});

scope.addEventListener('notificationclick', (e) => {
  e.notification.close();
  // The worker lives under <adminPath>/assets/; the studio is one level up, its inbox a hash route.
  e.waitUntil(scope.clients.openWindow(new URL('../', scope.location.href).href));
});
