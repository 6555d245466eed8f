/**
 * An SDK package loaded on its adapter's first use, not when the adapter's module loads: every
 * function (and the local runtime) builds all the ports, and a start should pay only for the
 * clients it touches (a client package costs tens of milliseconds to load). The Lambda bundle
 * keeps the runtime's SDK external, so the import there is the runtime's package as well.
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load().catch((error: unknown) => {
      // A load that failed is tried again by the next use, not remembered broken.
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
}
