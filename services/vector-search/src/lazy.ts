/**
 * `make` run on first call, its promise shared by every call after; a failure
 * is forgotten, so the next call tries again (a store or model that was not
 * reachable yet).
 */
export function lazy<T>(make: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= make().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}
