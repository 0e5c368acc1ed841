/**
 * `npm run wordpress:zip`: the plugin as the zip a webmaster uploads (Plugins → Add New → Upload), at
 * dist/wordpress/age-provider.zip. The .mo files are compiled from the .po files with gettext's msgfmt (Debian:
 * apt-get install gettext). The zip is written here (stored names, deflate from node:zlib, CRC-32), so building it
 * needs no zip program and no npm dependency.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
export const PLUGIN_DIR = join(here, 'age-provider');
export const ZIP_PATH = join(here, '..', '..', 'dist', 'wordpress', 'age-provider.zip');

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

interface Entry {
  name: string;
  data: Buffer;
}

/** A zip archive (PKWARE APPNOTE 4.3): one local header and deflated data per file, then the central directory. */
function zip(entries: Entry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const fileName = Buffer.from(name, 'utf8');
    const compressed = deflateRawSync(data, { level: 9 });
    const crc = crc32(data);
    // version 2.0, flag bit 11 (UTF-8 names), deflate, a fixed DOS time (reproducible builds: 1 Jan 2020)
    const common = (header: Buffer, at: number) => {
      header.writeUInt16LE(20, at);
      header.writeUInt16LE(0x0800, at + 2);
      header.writeUInt16LE(8, at + 4);
      header.writeUInt16LE(0, at + 6);
      header.writeUInt16LE((40 << 9) | (1 << 5) | 1, at + 8);
      header.writeUInt32LE(crc, at + 10);
      header.writeUInt32LE(compressed.length, at + 14);
      header.writeUInt32LE(data.length, at + 18);
      header.writeUInt16LE(fileName.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    common(local, 4);
    locals.push(local, fileName, compressed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4); // made by: Unix, 2.0
    common(central, 6);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

async function filesUnder(folder: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(path)));
    else if (!entry.name.endsWith('.mo')) found.push(path);
  }
  return found.sort();
}

/** Builds the zip and returns its path. Throws, naming the fix, when msgfmt is missing. */
export async function buildWordPressZip(target = ZIP_PATH): Promise<string> {
  const entries: Entry[] = [];
  for (const path of await filesUnder(PLUGIN_DIR)) {
    const name = `age-provider/${relative(PLUGIN_DIR, path).split(sep).join('/')}`;
    entries.push({ name, data: await readFile(path) });
    if (path.endsWith('.po')) {
      let mo: Buffer;
      try {
        mo = execFileSync('msgfmt', ['--check', '-o', '-', path]);
      } catch (error) {
        throw new Error(`msgfmt could not compile ${name} (Debian: apt-get install gettext): ${(error as Error).message}`);
      }
      entries.push({ name: name.replace(/\.po$/, '.mo'), data: mo });
    }
  }
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, zip(entries));
  return target;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = await buildWordPressZip();
  console.log(`wrote ${relative(process.cwd(), path)}`);
}
