import { lazy, type ComponentType } from 'react';

type Module<P> = { default: ComponentType<P> };

/**
 * A component whose code is a chunk of its own, loaded once: a page of the router, or a view of
 * the reader's page the first story does not need. Once the chunk has arrived, the lazy
 * component is given a thenable that answers at once, so it renders without suspending:
 * suspending costs more than a download on a chunk already preloaded, for React shows the
 * fallback and then holds the content back until 300 ms after it (its fallback throttle), a
 * fifth of a phone's time to the first story.
 */
export function chunk<P extends object = object>(load: () => Promise<Module<P>>) {
  let loaded: Module<P> | undefined;
  let loading: Promise<Module<P>> | undefined;
  // A failed download is asked for again by the next preload (an idle one may meet a dropped
  // connection); once React has rendered the component, its own attempt is final.
  const preload = () =>
    (loading ??= load().then(
      (m) => (loaded = m),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    ));
  const Component = lazy(() => (loaded ? ({ then: (ok: (m: Module<P>) => void) => ok(loaded!) } as Promise<Module<P>>) : preload()));
  return { preload, Component };
}

export type Chunk<P extends object = object> = ReturnType<typeof chunk<P>>;
