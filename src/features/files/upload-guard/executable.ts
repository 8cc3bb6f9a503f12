import { UploadExecutable } from '../upload.errors.ts';
import { hasPeHeader } from './payload-scanner.ts';

interface ExecutableFormat {
  format: string;
  detected: string;
}

const PE: ExecutableFormat = { format: 'Windows PE/DOS MZ', detected: 'application/x-msdownload' };
const ELF: ExecutableFormat = { format: 'ELF', detected: 'application/x-elf' };
const MACH_O: ExecutableFormat = { format: 'Mach-O', detected: 'application/x-mach-binary' };
const SCRIPT: ExecutableFormat = { format: 'script with a #! interpreter line', detected: 'application/x-sh' };

/**
 * Mach-O thin (32/64-bit, both byte orders) and fat/universal magics. `CAFEBABE` is also a Java class file:
 * refused as well, a class file is no upload either.
 */
const MACH_O_MAGICS = new Set([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe, 0xcafebabf, 0xbebafeca]);

/** What `file-type` reports for programs; each is refused whatever the declared type. */
const EXECUTABLE_SNIFFS: ReadonlyMap<string, string> = new Map([
  ['application/x-msdownload', PE.format],
  ['application/vnd.microsoft.portable-executable', PE.format],
  ['application/x-elf', ELF.format],
  ['application/x-mach-binary', MACH_O.format],
  ['application/x-sh', SCRIPT.format],
  ['application/java-vm', 'Java class'],
  ['application/wasm', 'WebAssembly'],
]);

/**
 * The executable format the file's first bytes announce, if any. A DOS `MZ` header is taken as a program unless the
 * upload is declared as text, its first 64 bytes hold no NUL and no PE header follows (a text may begin "MZ").
 */
function executableFormat(head: Buffer, declaredText: boolean): ExecutableFormat | undefined {
  if (head.length >= 2 && head[0] === 0x4d && head[1] === 0x5a) {
    const looksLikeText = declaredText && !head.subarray(0, 64).includes(0);
    if (!looksLikeText || hasPeHeader(head, 0)) return PE;
  }
  if (head.length >= 4 && head.readUInt32BE(0) === 0x7f454c46) return ELF;
  if (head.length >= 4 && MACH_O_MAGICS.has(head.readUInt32BE(0))) return MACH_O;
  if (head.length >= 2 && head[0] === 0x23 && head[1] === 0x21) return SCRIPT;
  return undefined;
}

/** Refuses a program, by its magic bytes or by the sniffer's verdict, whatever its name and declared type. */
export function refuseExecutable(head: Buffer, sniffed: string | undefined, declaredText: boolean): void {
  const found = executableFormat(head, declaredText);
  if (found) throw new UploadExecutable(found);
  const format = sniffed === undefined ? undefined : EXECUTABLE_SNIFFS.get(sniffed);
  if (format !== undefined && sniffed !== undefined) throw new UploadExecutable({ format, detected: sniffed });
}
