/**
 * Polls `probe` until it returns a value. Generous by default: on a loaded 2-core machine a
 * workflow round trip can take seconds, and a timeout here only ever means "failed".
 */
export async function eventually<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}
