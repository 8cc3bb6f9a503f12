import type { ApiClient } from './api/client.ts';
import { base64UrlBytes, pushOffer, type PushOffer } from './inbox.ts';
// The service worker, bundled by Vite as an asset of its own (hashed, under assets/ like the rest).
import workerUrl from './push-sw.ts?worker&url';

/** What this browser offers for Web Push (service worker, PushManager, notifications, a secure context). */
export function browserPushOffer(publicKey: string | null): PushOffer {
  return pushOffer(publicKey, {
    serviceWorker: typeof navigator !== 'undefined' && 'serviceWorker' in navigator,
    pushManager: typeof window !== 'undefined' && 'PushManager' in window,
    notification: typeof window !== 'undefined' && 'Notification' in window,
    secure: typeof window !== 'undefined' && window.isSecureContext,
  });
}

/** The worker's registration (registered once; push needs an active worker). */
async function registration(): Promise<ServiceWorkerRegistration> {
  const reg = await navigator.serviceWorker.register(workerUrl, { type: 'module' });
  const worker = reg.installing ?? reg.waiting;
  if (!reg.active && worker)
    await new Promise<void>((resolve) => {
      worker.addEventListener('statechange', () => {
        if (worker.state === 'activated' || worker.state === 'redundant') resolve();
      });
    });
  return reg;
}

/** This browser's subscription, if it has one. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  const reg = await navigator.serviceWorker.getRegistration(workerUrl);
  return (await reg?.pushManager.getSubscription()) ?? null;
}

/** Asks the browser for a subscription under the service's VAPID key and saves it with the service. */
export async function subscribe(api: ApiClient, site: string, publicKey: string): Promise<void> {
  if ((await Notification.requestPermission()) !== 'granted') throw new Error('notifications-denied');
  const reg = await registration();
  const sub = await reg.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: base64UrlBytes(publicKey),
  });
  const json = sub.toJSON();
  await api.request('POST', '/push/subscriptions', { site, body: { endpoint: json.endpoint, keys: json.keys } });
}

/** Removes the subscription at the service and in the browser. */
export async function unsubscribe(api: ApiClient, site: string, sub: PushSubscription): Promise<void> {
  await api.request('DELETE', '/push/subscriptions', { site, body: { endpoint: sub.endpoint } });
  await sub.unsubscribe();
}
