import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

// playwright-core never downloads a browser; this keeps any tool that would from trying.
process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = '1';

/** Debian's chromium on the PATH, or null. */
export function chromiumPath(): string | null {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/**
 * Whether a browser test file runs: with chromium, yes; without it, the file is skipped on a workstation and fails
 * under CI (`CI` set), where .ci/run installs it.
 */
export function browserAvailable(): boolean {
  if (chromiumPath()) return true;
  if (process.env.CI) throw new Error('chromium is not installed: .ci/run installs it (apt-get install -y chromium)');
  return false;
}

/** One headless Chromium for a test file. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath()!,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** A blank page served on its own loopback port: a web app's origin, `http://127.0.0.1:<port>`. */
export async function pageServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>app</title><p>app</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
