import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MailParser, type AttachmentStream } from 'mailparser';

/** How deep messages forwarded as attachments are opened (a forward of a forward…). */
export const MAX_FORWARD_DEPTH = 3;
/** Bytes of each attachment kept in memory for type detection; the whole of it goes to a file. */
const HEAD_BYTES = 64 * 1024;
/**
 * Attachments one message may carry, those of forwarded messages and inline images included.
 * Without a cap, a 151 KB message of 3 forwards × 400 tiny XMLs made 1,200 files and imports, and
 * a 30 MB one could hold an hour of the intake's work; a provider's message carries a few.
 */
export const MAX_ATTACHMENTS_PER_MESSAGE = 200;

export class TooManyAttachments extends Error {
  constructor() {
    super(`the message carries more than ${MAX_ATTACHMENTS_PER_MESSAGE} attachments`);
  }
}

/** An attachment of a spooled message, streamed to a file of its own. */
export type ExtractedAttachment = { filename: string | null; mimeType: string; path: string; bytes: number; head: Buffer };
export type ExtractedMessage = { subject: string | null; messageId: string | null; attachments: ExtractedAttachment[] };

/**
 * Parses a message from a file as a stream (mailparser): each attachment is decoded straight
 * into a file next to it, so a 26 MB message costs a few 64 KB buffers instead of its size several
 * times over. Attached messages (`message/rfc822`, "forward as attachment") are opened in turn,
 * up to MAX_FORWARD_DEPTH, and replaced by their own attachments; one that cannot be parsed is
 * kept as is. Every file made here lives in `directory` (the caller removes it).
 */
export async function extractMessage(source: string, directory: string, depth = 1, seen = { attachments: 0 }): Promise<ExtractedMessage> {
  const parser = new MailParser({ skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true });
  let subject: string | null = null;
  let messageId: string | null = null;
  const pending: Promise<ExtractedAttachment>[] = [];
  parser.on('headers', (headers: Map<string, unknown>) => {
    const value = headers.get('subject');
    subject = typeof value === 'string' ? value : null;
    const id = headers.get('message-id');
    messageId = typeof id === 'string' ? id : null;
  });
  parser.on('data', (data: { type: string }) => {
    if (data.type !== 'attachment') return;
    const attachment = data as unknown as AttachmentStream;
    seen.attachments += 1;
    if (seen.attachments > MAX_ATTACHMENTS_PER_MESSAGE) {
      attachment.content.resume();
      attachment.release?.();
      parser.destroy(new TooManyAttachments());
      return;
    }
    pending.push(saveAttachment(attachment, directory).finally(() => attachment.release?.()));
  });
  try {
    await pipeline(createReadStream(source), parser);
  } catch (error) {
    // The saves under way end with the parser; their files go with the caller's directory.
    for (const save of pending) save.catch(() => undefined);
    throw error;
  }
  const attachments = await Promise.all(pending);

  const result: ExtractedAttachment[] = [];
  for (const attachment of attachments) {
    if (attachment.mimeType !== 'message/rfc822' || depth > MAX_FORWARD_DEPTH) {
      result.push(attachment);
      continue;
    }
    try {
      result.push(...(await extractMessage(attachment.path, directory, depth + 1, seen)).attachments);
    } catch (error) {
      if (error instanceof TooManyAttachments) throw error;
      result.push(attachment);
    }
  }
  return { subject, messageId, attachments: result };
}

async function saveAttachment(attachment: AttachmentStream, directory: string): Promise<ExtractedAttachment> {
  const file = path.join(directory, `${randomUUID()}.part`);
  const head: Buffer[] = [];
  let headBytes = 0;
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (headBytes < HEAD_BYTES) {
        const part = chunk.subarray(0, HEAD_BYTES - headBytes);
        head.push(Buffer.from(part));
        headBytes += part.length;
      }
      done(null, chunk);
    },
  });
  await pipeline(attachment.content, measure, createWriteStream(file));
  return {
    filename: attachment.filename?.trim() || null,
    mimeType: (attachment.contentType || 'application/octet-stream').toLowerCase(),
    path: file,
    bytes,
    head: Buffer.concat(head),
  };
}
