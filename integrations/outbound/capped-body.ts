/**
 * A fetch answer's body as text, reading at most maxBytes: beyond that the rest is never read and
 * the connection is dropped (`truncated`). An upstream that streams without end, or a proxy's
 * gigabyte error page, would otherwise be read whole into a worker whose heap is 128 MB, killing
 * every activity it runs, attempt after attempt. The fetch's abort signal still bounds the time.
 */
export async function readCappedBody(response: Response, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(value);
  }
}
