import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The README's shell examples as one walk-through script, so an example that stops working fails a test
 * (test/http/readme.int.test.ts) instead of a newcomer's first hour.
 *
 * Every fenced block whose info string starts with `sh` or `bash` is taken, in the README's order, except the first
 * (install and test: it starts the service, which the walk-through is run against) and blocks fenced as
 * `sh skip`, which must open with a `#` comment saying to the reader why they are not run here.
 */
export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The heading the block sits under, for messages. */
  section: string;
  text: string;
  /** Why the walk-through leaves the block out (the block's first comment), or null when it runs. */
  skip: string | null;
}

const FENCE = /^```(\S*)(.*)$/;

/** Every shell block of a Markdown text, in order. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{1,6}\s+(.*)$/.exec(lines[i]!);
    if (heading) section = heading[1]!;
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    if (end < 0) throw new Error(`README.md:${i + 1}: a fence that never closes`);
    const [, lang, rest] = open;
    if (lang === 'sh' || lang === 'bash') {
      const text = lines.slice(i + 1, end).join('\n');
      const skipped = rest!.trim() === 'skip';
      if (!skipped && rest!.trim() !== '') throw new Error(`README.md:${i + 1}: unknown fence option "${rest}"`);
      const reason = skipped ? /^#\s*(.+)$/.exec(text.split('\n')[0] ?? '')?.[1] : null;
      if (skipped && !reason) throw new Error(`README.md:${i + 1}: a skipped block opens with a comment saying why`);
      blocks.push({ line: i + 1, section, text, skip: reason ?? null });
    }
    i = end;
  }
  return blocks;
}

/**
 * The blocks that run, after the first, joined into one bash script that stops at the first failing command.
 * Each block is preceded by a line that names it, so a failure points at the README's line.
 */
export function walkthrough(markdown: string): string {
  const run = shellBlocks(markdown)
    .slice(1)
    .filter((b) => b.skip === null);
  return [
    '#!/usr/bin/env bash',
    'set -euo pipefail',
    ...run.map((b) => `echo "### README.md:${b.line} (${b.section})" >&2\n${b.text}`),
    '',
  ].join('\n');
}

// `npx tsx scripts/readme-blocks.ts > walkthrough.sh` writes the script, to run against a fresh instance.
if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  const readme = new URL('../README.md', import.meta.url);
  process.stdout.write(walkthrough(fs.readFileSync(readme, 'utf8')));
}
