/**
 * Reading uploaded ZIP archives defensively (adm-zip): every limit is checked on the sizes the
 * central directory DECLARES before anything is inflated, and again on what inflating really
 * produces. Entries are classified by content, never by name.
 */
import AdmZip from 'adm-zip';
import path from 'node:path';
import { detectFileType } from './detect';

export type ZipLimits = {
  /** Entries in the central directory (directories included). */
  maxEntries: number;
  /** Uncompressed size of one entry, in bytes. */
  maxEntryBytes: number;
  /** Uncompressed size of all entries together, in bytes. */
  maxTotalBytes: number;
  /** Uncompressed / compressed size of one entry. */
  maxCompressionRatio: number;
  /** Entries up to this uncompressed size are exempt from the ratio check (tiny files can compress very well and cannot be bombs). */
  ratioExemptBytes: number;
};

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: 50,
  maxEntryBytes: 20 * 1024 * 1024,
  maxTotalBytes: 50 * 1024 * 1024,
  maxCompressionRatio: 100,
  ratioExemptBytes: 64 * 1024,
};

export type ArchiveErrorCode =
  | 'corrupt_archive'
  | 'archive_too_large'
  | 'too_many_entries'
  | 'compression_ratio'
  | 'encrypted_archive'
  | 'unsafe_entry_name'
  | 'empty_archive';

export class ArchiveError extends Error {
  constructor(
    readonly code: ArchiveErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ArchiveError';
  }
}

export type ArchiveFile = { name: string; data: Buffer };

export type ZipContents = {
  xmls: ArchiveFile[];
  pdfs: ArchiveFile[];
  /** Entry names not returned: directories, __MACOSX/ and dot-files, nested archives, unknown content. */
  ignored: string[];
};

const ENCRYPTED_FLAG = 0x0001;
const STORED = 0;
const DEFLATED = 8;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;

/**
 * An entry's name with the separator the ZIP format prescribes: some Windows tools (older .NET
 * ZipFile among them) write folder\file.xml, and unzip tools read that backslash as a separator.
 */
export function entryPath(name: string): string {
  return name.replace(/\\/g, '/');
}

/** Why an entry name (as entryPath gives it) could escape an extraction directory, or null when it is safe. */
export function unsafeEntryNameReason(name: string): string | null {
  if (name === '') return 'an empty name';
  if (name.includes('\0')) return 'a NUL character';
  if (name.startsWith('/')) return 'an absolute path';
  if (/^[A-Za-z]:/.test(name)) return 'a drive letter';
  if (name.split('/').some((segment) => segment === '..')) return "a '..' segment";
  return null;
}

/** Directories, macOS metadata (__MACOSX/, ._files, .DS_Store) and other dot-files. */
function isIgnoredName(name: string): boolean {
  if (name.endsWith('/')) return true;
  return name.split('/').some((segment) => segment === '__MACOSX' || segment.startsWith('.'));
}

function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The general-purpose flags of the entry's LOCAL header (may differ from the central one). */
function localFlags(bytes: Buffer, offset: number): number | null {
  if (offset < 0 || offset + 30 > bytes.length || bytes.readUInt32LE(offset) !== LOCAL_HEADER_SIGNATURE) return null;
  return bytes.readUInt16LE(offset + 6);
}

function openArchive(bytes: Buffer, limits: ZipLimits): AdmZip.IZipEntry[] {
  const type = detectFileType(bytes);
  if (type !== 'zip') throw new ArchiveError('corrupt_archive', 'the file is not a ZIP archive');
  let zip: AdmZip;
  try {
    zip = new AdmZip(bytes, { readEntries: false, noSort: true });
  } catch (error) {
    throw new ArchiveError('corrupt_archive', `the ZIP archive cannot be read: ${libraryMessage(error)}`);
  }
  const declaredCount = zip.getEntryCount();
  if (declaredCount > limits.maxEntries) {
    throw new ArchiveError('too_many_entries', `the archive has ${declaredCount} entries; the limit is ${limits.maxEntries}`);
  }
  try {
    return zip.getEntries();
  } catch (error) {
    throw new ArchiveError('corrupt_archive', `the ZIP archive cannot be read: ${libraryMessage(error)}`);
  }
}

/** adm-zip's words without its name ("ADM-ZIP: Duplicate entry name" → "duplicate entry name"). */
function libraryMessage(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).replace(/^ADM-ZIP:\s*/i, '');
  return message.charAt(0).toLowerCase() + message.slice(1);
}

/** Checks made on the central directory only, before inflating anything. */
function checkDeclared(bytes: Buffer, entries: AdmZip.IZipEntry[], limits: ZipLimits): void {
  if (entries.length > limits.maxEntries) {
    throw new ArchiveError('too_many_entries', `the archive has ${entries.length} entries; the limit is ${limits.maxEntries}`);
  }
  let total = 0;
  for (const entry of entries) {
    const name = entryPath(entry.entryName);
    const reason = unsafeEntryNameReason(name);
    if (reason) throw new ArchiveError('unsafe_entry_name', `entry ${JSON.stringify(name)} has ${reason}`);
    const { flags, method, size, compressedSize, offset } = entry.header;
    const local = localFlags(bytes, offset);
    if (local === null) throw new ArchiveError('corrupt_archive', `entry ${JSON.stringify(name)} has no valid local header`);
    if ((flags | local) & ENCRYPTED_FLAG) {
      throw new ArchiveError('encrypted_archive', `entry ${JSON.stringify(name)} is encrypted; upload archives without a password`);
    }
    if (entry.isDirectory) continue;
    if (method !== STORED && method !== DEFLATED) {
      throw new ArchiveError('corrupt_archive', `entry ${JSON.stringify(name)} uses unsupported compression method ${method}`);
    }
    if (size > limits.maxEntryBytes) {
      throw new ArchiveError('archive_too_large', `entry ${JSON.stringify(name)} is ${mebibytes(size)} uncompressed; the limit is ${mebibytes(limits.maxEntryBytes)}`);
    }
    if (size > limits.ratioExemptBytes && size > compressedSize * limits.maxCompressionRatio) {
      const ratio = compressedSize > 0 ? Math.round(size / compressedSize) : Infinity;
      throw new ArchiveError('compression_ratio', `entry ${JSON.stringify(name)} expands ${ratio}:1; the limit is ${limits.maxCompressionRatio}:1`);
    }
    total += size;
    if (total > limits.maxTotalBytes) {
      throw new ArchiveError('archive_too_large', `the archive holds more than ${mebibytes(limits.maxTotalBytes)} uncompressed`);
    }
  }
}

/** Inflates one entry (adm-zip caps the output at the declared size and checks the CRC), then verifies the size. */
function inflate(entry: AdmZip.IZipEntry, limits: ZipLimits): Buffer {
  const name = JSON.stringify(entryPath(entry.entryName));
  let data: Buffer;
  try {
    data = entry.getData();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if ((error as NodeJS.ErrnoException)?.code === 'ERR_BUFFER_TOO_LARGE' || /larger than|max.?output/i.test(message)) {
      throw new ArchiveError('archive_too_large', `entry ${name} inflates beyond its declared size (a ZIP bomb?)`);
    }
    throw new ArchiveError('corrupt_archive', `entry ${name} cannot be decompressed: ${libraryMessage(error)}`);
  }
  if (data.length !== entry.header.size) {
    throw new ArchiveError('corrupt_archive', `entry ${name} inflates to ${data.length} bytes but declares ${entry.header.size}`);
  }
  if (data.length > limits.maxEntryBytes) {
    throw new ArchiveError('archive_too_large', `entry ${name} is larger than ${mebibytes(limits.maxEntryBytes)}`);
  }
  return data;
}

/**
 * Lists the XML and PDF files of an uploaded ZIP, classified by content. Throws ArchiveError
 * (corrupt_archive, archive_too_large, too_many_entries, compression_ratio, encrypted_archive,
 * unsafe_entry_name, empty_archive). Nested archives are not opened (they go to `ignored`).
 */
export function readZipSafely(bytes: Buffer, limits: Partial<ZipLimits> = {}): ZipContents {
  const effective: ZipLimits = { ...DEFAULT_ZIP_LIMITS, ...limits };
  const entries = openArchive(bytes, effective);
  checkDeclared(bytes, entries, effective);

  const contents: ZipContents = { xmls: [], pdfs: [], ignored: [] };
  let files = 0;
  let total = 0;
  for (const entry of entries) {
    const name = entryPath(entry.entryName);
    if (entry.isDirectory || isIgnoredName(name)) {
      contents.ignored.push(name);
      continue;
    }
    files += 1;
    const data = inflate(entry, effective);
    total += data.length;
    if (total > effective.maxTotalBytes) {
      throw new ArchiveError('archive_too_large', `the archive holds more than ${mebibytes(effective.maxTotalBytes)} uncompressed`);
    }
    const type = detectFileType(data);
    if (type === 'xml') contents.xmls.push({ name, data });
    else if (type === 'pdf') contents.pdfs.push({ name, data });
    else contents.ignored.push(name);
  }
  if (files === 0) throw new ArchiveError('empty_archive', 'the archive contains no files');
  return contents;
}

function baseName(name: string): string {
  const file = path.posix.basename(name);
  const dot = file.lastIndexOf('.');
  return (dot > 0 ? file.slice(0, dot) : file).toLowerCase();
}

/**
 * For each XML, the PDF with the same base name (directory, extension and case ignored), else
 * the only PDF when the archive holds exactly one XML and one PDF, else null.
 */
export function pairPdfWithXml(xmls: readonly ArchiveFile[], pdfs: readonly ArchiveFile[]): { xml: ArchiveFile; pdf: ArchiveFile | null }[] {
  return xmls.map((xml) => {
    const sameName = pdfs.find((pdf) => baseName(pdf.name) === baseName(xml.name));
    if (sameName) return { xml, pdf: sameName };
    return { xml, pdf: xmls.length === 1 && pdfs.length === 1 ? pdfs[0] : null };
  });
}
