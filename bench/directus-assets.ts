import autocannon from 'autocannon';
import { join } from 'node:path';
import { directusInstall, startDirectus } from './directus.ts';
import { photoJpeg } from './photo.ts';

/**
 * Directus's side of `bench:files`: the same 2 000 × 1 500 JPEG uploaded to Directus (`POST /files`) and loaded as
 * `/assets/:id?width=…&format=webp`, cold (distinct widths) and cached (the same again), at 10 connections. Needs an
 * install left by the peer script (`WORK_DIR=/tmp/directus-peer/x bash ../shared/peer-directus/run.sh`), given as
 * DIRECTUS_INSTALL (the work dir holding `node/` and `app/`). Runs Directus on port 8056 against a database of its
 * own on the local PostgreSQL (bench/directus.ts), with the peer's settings (no rate limiter, no response cache,
 * schema cache frozen), and stops it by its PID. `DIRECTUS_INSTALL=… npm run bench:directus-assets`.
 */
const install = directusInstall();
const DURATION = Number(process.env.DURATION ?? 10);
const COLD = Number(process.env.COLD ?? 60);
const directus = await startDirectus({
  install,
  port: 8056,
  db: 'directus_assets',
  freeze: true,
  env: {
    STORAGE_LOCATIONS: 'local',
    STORAGE_LOCAL_DRIVER: 'local',
    STORAGE_LOCAL_ROOT: join(install, 'assets-uploads'),
  },
});
const url = directus.url;
const rows: string[] = [];
try {
  const auth = { authorization: `Bearer ${directus.token}` };
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(await photoJpeg())], { type: 'image/jpeg' }), 'photo.jpg');
  const up = await fetch(`${url}/files`, { method: 'POST', headers: auth, body: form });
  if (!up.ok) throw new Error(`upload: ${up.status} ${await up.text()}`);
  const id = ((await up.json()) as { data: { id: string } }).data.id;
  let w = 400;
  const t0 = Date.now();
  const cold = await autocannon({
    url,
    connections: 10,
    amount: COLD,
    requests: [
      { method: 'GET', headers: auth, setupRequest: (r) => ({ ...r, path: `/assets/${id}?width=${w++}&format=webp` }) },
    ],
  });
  const coldMs = Date.now() - t0;
  rows.push(
    `| Directus 12.4.0 | transform → 400–${w - 1} px WebP, cold (${COLD}) | ${Math.round((COLD * 1000) / coldMs)} req/s | p99 ${cold.latency.p99} ms, non-2xx ${cold.non2xx} |`,
  );
  const hot = await autocannon({
    url,
    connections: 10,
    duration: DURATION,
    requests: [{ method: 'GET', path: `/assets/${id}?width=400&format=webp`, headers: auth }],
  });
  rows.push(
    `| Directus 12.4.0 | the same transform again (the cached derivative's bytes) | ${Math.round(hot.requests.mean)} req/s | p99 ${hot.latency.p99} ms, non-2xx ${hot.non2xx} |`,
  );
} finally {
  await directus.stop();
}
console.log(['| server | scenario | result | detail |', '| --- | --- | --- | --- |', ...rows].join('\n'));
