import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { AppConfig } from '../config';
import { detectFileType, type DetectedFileType } from '../domain/files/detect';
import { countSmtpMessage, countSmtpSession } from '../config/outcome-metrics';
import { acceptFile, IntakeError, MAX_FILE_BYTES, type IntakeDependencies } from '../services/accept-file';
import { extractMessage, MAX_ATTACHMENTS_PER_MESSAGE, TooManyAttachments, type ExtractedMessage } from './mime-extract';
import { inboxTokenOf } from '../domain/email-address';

/**
 * Concurrent SMTP connections. A message streams to a spool file, so a session holds little
 * memory; what a session holds is a slot, so one address may hold only some of them
 * (config.maxConnectionsPerAddress) and no session outlives config.maxSessionMs.
 */
export const MAX_CLIENTS = 20;
/** The window of the per-company quota (config.email.dailyQuota). */
const QUOTA_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Recipients of one transaction (each is a company that gets its own copy). */
const MAX_RECIPIENTS = 50;

export type EmailIntakeDependencies = IntakeDependencies & { logger: Logger; config: AppConfig['email'] };
export type RunningEmailIntake = { port: number; close(): Promise<void> };

/** An SMTP reply to the client: 4xx asks the sending MTA to retry, 5xx is final. */
class SmtpReply extends Error {
  constructor(readonly responseCode: number, message: string) {
    super(message);
  }
}

/**
 * Bytes of attachments held in memory at once. Receiving, MIME parsing and storing the .eml all
 * stream through files; only an importable attachment (XML, ZIP, PDF up to 20 MB) is read whole,
 * to be stored and imported, and this budget bounds how many such bytes all sessions hold. A
 * claim larger than the budget waits until it has the budget to itself.
 */
export class ByteBudget {
  private used = 0;
  private readonly waiting: { bytes: number; resolve(): void }[] = [];

  constructor(readonly capacity: number) {}

  async acquire(bytes: number): Promise<() => void> {
    const amount = Math.min(bytes, this.capacity);
    if (this.waiting.length > 0 || this.used + amount > this.capacity) {
      await new Promise<void>((resolve) => this.waiting.push({ bytes: amount, resolve }));
    } else {
      this.used += amount;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= amount;
      // First come, first served: a large message is not starved by a stream of small ones.
      while (this.waiting.length > 0 && this.used + this.waiting[0].bytes <= this.capacity) {
        const next = this.waiting.shift()!;
        this.used += next.bytes;
        next.resolve();
      }
    };
  }
}

/** A message as received: on disk (trace headers first), with the size and digest of its DATA. */
type SpooledMessage = { path: string; bytes: number; sha256: string };

/**
 * The SMTP listener behind every company's inbox address (docs/email-intake.md): a message for
 * `<inbox_token>@<domain>` is kept as it came (message/rfc822 in the blob store) and each of its
 * XML, ZIP and PDF attachments goes through acceptFile as an uploaded file of type EMAIL.
 * The message is answered 250 only after all of that is stored, 451 when it could not be,
 * 452 when a recipient company has reached its daily quota, 552 when it is over the size limit.
 */
export async function startEmailIntake(deps: EmailIntakeDependencies): Promise<RunningEmailIntake> {
  const { config } = deps;
  const logger = deps.logger.child({ component: 'email-intake' });
  const spoolDirectory = await mkdtemp(path.join(os.tmpdir(), 'invoicing-smtp-spool-'));
  const parsing = new ByteBudget(config.maxMessageBytes);
  /** Sessions that had a message accepted, until they close (the session metric's outcome). */
  const delivering = new Set<string>();
  const limits = new SessionLimits(config.maxConnectionsPerAddress, config.maxSessionMs);

  const server = new SMTPServer({
    logger: false,
    banner: 'document invoicing inbox',
    authOptional: true,
    // Plain SMTP: meant for loopback or behind a TLS-terminating MTA (docs/email-intake.md).
    disabledCommands: ['STARTTLS', 'AUTH'],
    size: config.maxMessageBytes,
    rejectOversized: true,
    maxClients: MAX_CLIENTS,
    maxRecipients: MAX_RECIPIENTS,
    closeTimeout: 10_000,
    onConnect(session, callback) {
      if (!limits.admit(session.id, session.remoteAddress, () => endSession(server, session.id, logger))) {
        logger.warn({ session: session.id, remoteAddress: session.remoteAddress }, 'refused a connection: too many from its address');
        return callback(new SmtpReply(421, '4.7.0 Too many connections from your address, try again later'));
      }
      callback();
    },
    onRcptTo(address, _session, callback) {
      resolveRecipient(deps, address.address)
        .then((companyId) => {
          if (companyId === null) {
            logger.info({ rcpt: address.address }, 'rejected a recipient: no such inbox');
            callback(new SmtpReply(550, `5.1.1 <${address.address}>: no such inbox`));
            return;
          }
          return overQuota(deps, companyId, 0).then((over) => {
            if (over) {
              logger.warn({ rcpt: address.address, companyId }, 'deferred a recipient: daily quota reached');
              callback(new SmtpReply(452, `4.2.2 <${address.address}>: this inbox has reached its daily quota, try again later`));
            } else {
              callback();
            }
          });
        })
        .catch((error: Error) => {
          logger.error({ err: error, rcpt: address.address }, 'could not look up an inbox');
          callback(new SmtpReply(451, '4.3.0 Temporary failure looking up the inbox, try again later'));
        });
    },
    onData(stream, session, callback) {
      spool(stream, session, spoolDirectory, config.maxMessageBytes)
        .then(async (spooled) => {
          if (spooled === null || stream.sizeExceeded) {
            throw new SmtpReply(552, `5.3.4 Message exceeds the maximum size of ${config.maxMessageBytes} bytes`);
          }
          try {
            return await deliver(deps, logger, session, spooled, parsing);
          } finally {
            await rm(spooled.path, { force: true });
          }
        })
        .then((reply) => {
          countSmtpMessage(250);
          delivering.add(session.id);
          callback(null, reply);
        })
        .catch((error: Error) => {
          if (clientLeftMidMessage(error)) {
            // Nothing to answer and nothing lost: a sending MTA sends the whole message again.
            logger.info({ session: session.id }, 'the client left before the end of its message; nothing of it was stored');
            return callback(error);
          }
          countSmtpMessage(error instanceof SmtpReply ? error.responseCode : 451);
          if (error instanceof SmtpReply) return callback(error);
          logger.error({ err: error, session: session.id }, 'could not store an e-mailed message; the sender will retry');
          callback(new SmtpReply(451, '4.3.0 Temporary failure storing the message, try again later'));
        });
    },
    onClose(session) {
      limits.release(session.id);
      countSmtpSession(delivering.delete(session.id) ? 1 : 0);
    },
  });
  // Connection-level errors (client resets, timeouts) must not crash the process.
  server.on('error', (error: Error) => logger.warn({ err: error }, 'SMTP connection error'));

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.server.once('error', onError);
    server.listen(config.port, config.host, () => {
      server.server.off('error', onError);
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;
  logger.info({ host: config.host, port, domain: config.domain }, 'SMTP intake listening');

  return {
    port,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(spoolDirectory, { recursive: true, force: true });
    },
  };
}

/**
 * What one client may hold of the listener: a slot of its address (at most perAddress open at
 * once) for at most lifetimeMs. A client that keeps talking (NOOP, RSET) is never idle, so the
 * idle timeout alone would let it keep its slot forever.
 */
export class SessionLimits {
  private readonly openByAddress = new Map<string, number>();
  private readonly sessions = new Map<string, { address: string; expiry: NodeJS.Timeout }>();

  constructor(private readonly perAddress: number, private readonly lifetimeMs: number) {}

  /** Takes a slot for the session and arms its expiry, or answers false when its address has none left. */
  admit(sessionId: string, address: string, onExpiry: () => void): boolean {
    const open = this.openByAddress.get(address) ?? 0;
    if (open >= this.perAddress) return false;
    this.openByAddress.set(address, open + 1);
    const expiry = setTimeout(onExpiry, this.lifetimeMs);
    expiry.unref();
    this.sessions.set(sessionId, { address, expiry });
    return true;
  }

  /** A refused session took no slot, so it releases none. */
  release(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.sessions.delete(sessionId);
    clearTimeout(session.expiry);
    const open = (this.openByAddress.get(session.address) ?? 1) - 1;
    if (open > 0) this.openByAddress.set(session.address, open);
    else this.openByAddress.delete(session.address);
  }
}

/** Closes a session that reached its time limit, telling the client why (RFC 5321 §3.8: 421). */
function endSession(server: SMTPServer, sessionId: string, logger: Logger): void {
  for (const connection of server.connections) {
    if (connection.session.id !== sessionId) continue;
    logger.warn({ session: sessionId, remoteAddress: connection.remoteAddress }, 'closed a session: time limit reached');
    connection.send(421, '4.4.2 Session time limit reached, closing connection', false);
    connection.close();
  }
}

/** smtp-server ends the DATA stream with ECONNECTION when the client's connection closes during it. */
function clientLeftMidMessage(error: Error): boolean {
  return (error as NodeJS.ErrnoException).code === 'ECONNECTION';
}

/** The company an envelope recipient designates, or null when it is not one of our inboxes. */
async function resolveRecipient(deps: EmailIntakeDependencies, address: string): Promise<number | null> {
  const token = inboxTokenOf(address, deps.config.domain);
  if (!token) return null;
  const company = await deps.repositories.companies.findByInboxToken(token);
  return company ? company.id : null;
}

/** Whether one more message of `bytes` would take the company over its quota for the last 24 hours. */
async function overQuota(deps: EmailIntakeDependencies, companyId: number, bytes: number): Promise<boolean> {
  const usage = await deps.repositories.emailMessages.usageSince(companyId, new Date(Date.now() - QUOTA_WINDOW_MS));
  const quota = deps.config.dailyQuota;
  return usage.messages + 1 > quota.messages || usage.bytes + bytes > quota.bytes;
}

/**
 * Streams the DATA into a spool file behind the trace headers, with its size and SHA-256
 * (the digest of what the sender sent, so a retried message is recognised); null once it is
 * over the limit (the rest is drained, not kept).
 */
async function spool(stream: SMTPServerDataStream, session: SMTPServerSession, directory: string, maxBytes: number): Promise<SpooledMessage | null> {
  const file = path.join(directory, `${randomUUID()}.eml`);
  const hash = createHash('sha256');
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) return done(); // drained, not written
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await writeFile(file, traceHeaders(session));
    await pipeline(stream, measure, createWriteStream(file, { flags: 'a' }));
  } catch (error) {
    await rm(file, { force: true });
    throw error;
  }
  if (bytes > maxBytes) {
    await rm(file, { force: true });
    return null;
  }
  return { path: file, bytes, sha256: hash.digest('hex') };
}

type Importable = { index: number; fileName: string; bytes: Buffer; type: DetectedFileType };
/** An attachment's name, declared type, and its bytes (or the first of them, enough to detect the type). */
type AttachmentLike = { filename?: string | null; mimeType: string; content: ArrayBuffer | Uint8Array | string };

/** Stores the message for every recipient company and accepts its attachments; returns the 250 text. */
async function deliver(
  deps: EmailIntakeDependencies,
  logger: Logger,
  session: SMTPServerSession,
  message: SpooledMessage,
  parsing: ByteBudget,
): Promise<string> {
  const companyIds = new Set<number>();
  for (const rcpt of session.envelope.rcptTo) {
    const companyId = await resolveRecipient(deps, rcpt.address);
    if (companyId !== null) companyIds.add(companyId);
  }
  if (companyIds.size === 0) throw new SmtpReply(550, '5.1.1 No such inbox');
  for (const companyId of companyIds) {
    if (await overQuota(deps, companyId, message.bytes)) {
      logger.warn({ session: session.id, companyId, bytes: message.bytes }, 'deferred a message: daily quota reached');
      throw new SmtpReply(452, '4.2.2 An inbox of this message has reached its daily quota, try again later');
    }
  }

  const partsDirectory = await mkdtemp(`${message.path}.parts-`);
  try {
    let extracted: ExtractedMessage;
    try {
      extracted = await extractMessage(message.path, partsDirectory);
    } catch (error) {
      if (error instanceof TooManyAttachments) {
        logger.warn({ session: session.id, bytes: message.bytes }, `refused a message: ${error.message}`);
        throw new SmtpReply(552, `5.3.4 The message carries more than ${MAX_ATTACHMENTS_PER_MESSAGE} attachments; send at most ${MAX_ATTACHMENTS_PER_MESSAGE} per message`);
      }
      // Unparseable MIME still gets stored: nothing is imported from it, but it is not lost.
      logger.warn({ err: error, session: session.id }, 'could not parse an e-mailed message');
      extracted = { subject: null, messageId: null, attachments: [] };
    }
    // Types are detected from each attachment's first bytes; only importable ones are read whole.
    const { importable, ignored, paired } = selectAttachments({
      attachments: extracted.attachments.map((part) => ({ filename: part.filename, mimeType: part.mimeType, content: part.head })),
    });
    const tooLarge = importable.filter((file) => extracted.attachments[file.index].bytes > MAX_FILE_BYTES);
    const loaded = importable.filter((file) => !tooLarge.includes(file));
    const context = {
      session: session.id,
      from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
      subject: extracted.subject,
      messageId: extracted.messageId,
    };
    for (const file of tooLarge) {
      logger.warn({ ...context, fileName: file.fileName, code: 'file_too_large' }, `e-mailed attachment refused: over ${MAX_FILE_BYTES} bytes`);
    }

    const release = await parsing.acquire(loaded.reduce((sum, file) => sum + extracted.attachments[file.index].bytes, 0));
    try {
      for (const file of loaded) file.bytes = await readFile(extracted.attachments[file.index].path);
      let accepted = 0;
      for (const companyId of companyIds) {
        const messageKey = `companies/${companyId}/mail/${randomUUID()}.eml`;
        await deps.blobStore.putFile(messageKey, message.path, 'message/rfc822');
        const files: number[] = [];
        for (const attachment of loaded) {
          try {
            const { file } = await acceptFile(deps, {
              companyId,
              type: 'EMAIL',
              fileName: attachment.fileName,
              bytes: attachment.bytes,
              sourceMessageKey: messageKey,
              // The same bytes again (a sending MTA retrying after a 4xx) replay the earlier files.
              idempotencyKey: `email:${message.sha256}:${attachment.index}`,
            });
            files.push(file.id);
          } catch (error) {
            if (!(error instanceof IntakeError)) throw error;
            logger.warn({ ...context, companyId, fileName: attachment.fileName, code: error.code }, `e-mailed attachment refused: ${error.message}`);
          }
        }
        // Counts against the quota; with no file, purgeUnimportableMailWorkflow deletes it after the retention.
        await deps.repositories.emailMessages.record({ company_id: companyId, blob_key: messageKey, bytes: message.bytes, files: files.length });
        accepted += files.length;
        logger.info(
          { ...context, companyId, messageKey, files, ignored, pairedPdfs: paired },
          files.length ? 'e-mailed message accepted' : 'e-mailed message accepted with no importable attachment',
        );
      }
      return `OK: message stored, ${accepted} file(s) accepted`;
    } finally {
      release();
    }
  } finally {
    await rm(partsDirectory, { recursive: true, force: true });
  }
}

/**
 * XML, ZIP and PDF attachments by content (not name or declared type); a PDF named like an
 * XML or ZIP of the same message is that document's representation, not a document of its own.
 */
export function selectAttachments(email: { attachments: AttachmentLike[] }): { importable: Importable[]; ignored: string[]; paired: string[] } {
  const candidates: Importable[] = [];
  const ignored: string[] = [];
  email.attachments.forEach((attachment, index) => {
    const bytes = toBuffer(attachment.content);
    const type = bytes.length ? detectFileType(bytes) : null;
    const name = attachment.filename?.trim() || null;
    if (!type) {
      ignored.push(name ?? `#${index + 1} (${attachment.mimeType})`);
      return;
    }
    candidates.push({ index, bytes, type, fileName: name ?? `attachment-${index + 1}.${type}` });
  });
  const documentBases = new Set(candidates.filter((file) => file.type !== 'pdf').map((file) => baseName(file.fileName)));
  const importable: Importable[] = [];
  const paired: string[] = [];
  for (const file of candidates) {
    if (file.type === 'pdf' && documentBases.has(baseName(file.fileName))) paired.push(file.fileName);
    else importable.push(file);
  }
  return { importable, ignored, paired };
}

function baseName(fileName: string): string {
  const name = path.posix.basename(fileName.replace(/\\/g, '/')).toLowerCase();
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

function toBuffer(content: ArrayBuffer | Uint8Array | string): Buffer {
  if (typeof content === 'string') return Buffer.from(content, 'utf8');
  if (content instanceof Uint8Array) return Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  return Buffer.from(content);
}

/** RFC 5321 §4.4: the receiving server prepends Return-Path and a Received line. */
function traceHeaders(session: SMTPServerSession): Buffer {
  const sender = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
  const helo = (session.hostNameAppearsAs || 'unknown').replace(/[^\x21-\x7e]/g, '');
  const received =
    `Received: from ${helo} ([${session.remoteAddress}])\r\n` +
    `\tby document-invoicing with ${session.transmissionType || 'SMTP'} id ${session.id};\r\n` +
    `\t${new Date().toUTCString().replace('GMT', '+0000')}\r\n`;
  return Buffer.from(`Return-Path: <${sender.replace(/[\r\n<>]/g, '')}>\r\n${received}`, 'utf8');
}
