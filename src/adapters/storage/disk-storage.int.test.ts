import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { objectStorageContract } from '../../../test/contracts/object-storage.contract.ts';
import { DiskObjectStorage } from './disk-storage.ts';

objectStorageContract('disk', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-files-'));
  return { storage: new DiskObjectStorage(dir), close: () => rm(dir, { recursive: true, force: true }) };
});
