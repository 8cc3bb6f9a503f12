import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  assertObjectKey,
  byteCounter,
  type ByteRange,
  type ObjectBody,
  type ObjectStorage,
  type PutOptions,
  type StoredObject,
} from '../../kernel/storage/object-storage.ts';

/**
 * Objects as files under a root directory (`SVC_DATA_DIR/files`). A write goes to `.tmp/` and is renamed into place
 * when complete, so a reader never sees half a file and an aborted write leaves nothing; content types live beside
 * the data under `.types/`. Keys cannot name either folder: no key segment starts with a dot.
 */
export class DiskObjectStorage implements ObjectStorage {
  readonly kind = 'disk' as const;
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string, area = ''): string {
    assertObjectKey(key);
    const path = resolve(this.root, area, ...key.split('/'));
    if (!path.startsWith(this.root + sep)) throw new TypeError('object key outside the storage root');
    return path;
  }

  private async tempPath(): Promise<string> {
    const dir = join(this.root, '.tmp');
    await mkdir(dir, { recursive: true });
    return join(dir, randomBytes(12).toString('hex'));
  }

  async put(key: string, body: Readable, options: PutOptions = {}): Promise<StoredObject> {
    const target = this.path(key);
    const temp = await this.tempPath();
    const counter = byteCounter(options.maxBytes);
    try {
      await pipeline(body, counter, createWriteStream(temp, { flags: 'wx' }));
      await this.place(temp, target, key, options.contentType);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    return { key, size: counter.bytes, contentType: options.contentType };
  }

  private async place(temp: string, target: string, key: string, contentType: string | undefined): Promise<void> {
    await mkdir(dirname(target), { recursive: true });
    const typePath = this.path(key, '.types');
    if (contentType) {
      await mkdir(dirname(typePath), { recursive: true });
      await writeFile(typePath, contentType);
    } else await rm(typePath, { force: true });
    await rename(temp, target);
  }

  async head(key: string): Promise<StoredObject | null> {
    const path = this.path(key);
    const info = await stat(path).catch(notFound);
    if (!info?.isFile()) return null;
    const contentType = await readFile(this.path(key, '.types'), 'utf8').catch(notFound);
    return { key, size: info.size, ...(contentType ? { contentType } : {}) };
  }

  async get(key: string, range?: ByteRange): Promise<ObjectBody | null> {
    const found = await this.head(key);
    if (!found) return null;
    if (!range) return { ...found, body: createReadStream(this.path(key)) };
    const end = Math.min(range.end, found.size - 1);
    return {
      ...found,
      range: { start: range.start, end },
      body: createReadStream(this.path(key), { start: range.start, end }),
    };
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
    await rm(this.path(key, '.types'), { force: true });
  }

  async copy(from: string, to: string): Promise<void> {
    const source = this.path(from);
    const found = await this.head(from);
    if (!found) throw new Error(`no object ${from}`);
    const temp = await this.tempPath();
    try {
      await copyFile(source, temp);
      await this.place(temp, this.path(to), to, found.contentType);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  /** Walks the folder the prefix lies in; fine for a site's files on one disk (object stores list by index). */
  async list(prefix: string, options: { after?: string; limit?: number } = {}): Promise<string[]> {
    const slash = prefix.lastIndexOf('/');
    const base = slash < 0 ? this.root : this.path(prefix.slice(0, slash));
    const keys: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(notFound);
      for (const entry of entries ?? []) {
        if (entry.name.startsWith('.')) continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (entry.isFile()) {
          const key = relative(this.root, path).split(sep).join('/');
          if (key.startsWith(prefix)) keys.push(key);
        }
      }
    };
    await walk(base);
    keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const after = options.after;
    return keys.filter((k) => after === undefined || k > after).slice(0, options.limit ?? 1000);
  }

  async presignPut(): Promise<null> {
    return null;
  }

  async close(): Promise<void> {}
}

function notFound(err: NodeJS.ErrnoException): null {
  if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return null;
  throw err;
}
