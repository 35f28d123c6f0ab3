import { useEffect, useLayoutEffect, useRef, useState, type ComponentType, type FocusEvent, type MouseEvent, type ReactNode, type RefObject } from 'react';

/** How the reader opened a control: a keyboard's open moves focus into it, a pointer's not. */
export type OpenedWith = 'keyboard' | 'pointer';

/** What a deferred control's code receives: how the reader opened it before it arrived. */
export type DeferredProps = { openedWith?: OpenedWith };

/** What stands in for a deferred control until its code arrives: its trigger, drawn alike. */
export type Placeholder = ComponentType<{ open: (how: OpenedWith) => void }>;

/** How a click opened a trigger: a click without a pointer (`detail` 0) came from Enter or Space. */
export const openedBy = (e: MouseEvent) => (e.detail === 0 ? 'keyboard' : 'pointer');

type Deferred<P> = ComponentType<P & { placeholder?: Placeholder }> & { preload: () => Promise<void> };

/**
 * A control the page's first content does not need (a menu or a dialog behind its trigger, a
 * reader that opens on a click), kept out of the chunks the first card waits for: its code is
 * asked for once the control is on screen, after the first content has been drawn. Until it
 * arrives `placeholder`, the control's trigger drawn alike, stands in; a press on it opens the
 * control as soon as the code is there. Without a placeholder nothing is drawn meanwhile.
 * A chunk that could not be fetched is asked for again at the next mount or press.
 */
export function deferred<P extends object>(load: () => Promise<ComponentType<P>>): Deferred<Omit<P, 'openedWith'>> {
  let Loaded: ComponentType<P & DeferredProps> | undefined;
  let loading: Promise<void> | undefined;
  const preload = () =>
    (loading ??= load().then(
      (component) => {
        Loaded = component as ComponentType<P & DeferredProps>;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    ));

  function DeferredControl({ placeholder: Stand, ...props }: Omit<P, 'openedWith'> & { placeholder?: Placeholder }) {
    const [, setArrived] = useState(Loaded !== undefined);
    const [opened, setOpened] = useState<OpenedWith>();
    // The placeholder and the control's trigger are two elements: focus on the one goes on to
    // the other when the code arrives, so a keyboard reader does not land on the page.
    const box = useRef<HTMLSpanElement>(null);
    const refocus = useRef(false);
    const fetchChunk = () => {
      // Offline with the chunk not kept, the placeholder stays and a press asks again.
      preload().then(
        () => setArrived(true),
        () => undefined,
      );
    };
    useEffect(() => {
      // Asked once per mount; a failed fetch is retried by the next press or mount.
      if (!Loaded) fetchChunk();
    }, []);
    useLayoutEffect(() => {
      if (!Loaded || !refocus.current) return;
      refocus.current = false;
      box.current?.querySelector<HTMLElement>('button, [href], [tabindex]')?.focus();
    });
    let control = null;
    if (Loaded) control = <Loaded {...(props as P)} openedWith={opened} />;
    else if (Stand)
      control = (
        <Leaving box={box} hadFocus={refocus}>
          <Stand
            open={(how) => {
              setOpened(how);
              fetchChunk();
            }}
          />
        </Leaving>
      );
    return (
      <span ref={box} className="contents">
        {control}
      </span>
    );
  }
  return Object.assign(DeferredControl, { preload });
}

/**
 * Notes, as the placeholder leaves the page and before its elements are removed (layout
 * effects are cleaned up first), whether focus was in it.
 */
function Leaving({ box, hadFocus, children }: { box: RefObject<HTMLElement | null>; hadFocus: RefObject<boolean>; children: ReactNode }) {
  useLayoutEffect(
    () => () => {
      hadFocus.current = Boolean(box.current?.contains(document.activeElement));
    },
    [box, hadFocus],
  );
  return children;
}

/**
 * A deferred menu's `onFocus`. Radix moves focus on to a menu's first item when the menu was
 * opened with the keyboard, which it learns from the key press; a menu whose code arrived
 * after that press did not see it, so on the first open the item is focused here, when Radix
 * focuses the menu itself. Later opens are Radix's alone.
 */
export function useFirstOpenFocus(openedWith: OpenedWith | undefined) {
  const first = useRef(openedWith === 'keyboard');
  return (e: FocusEvent<HTMLElement>) => {
    if (!first.current || e.target !== e.currentTarget) return;
    first.current = false;
    e.currentTarget.querySelector<HTMLElement>('[role="menuitem"]')?.focus({ preventScroll: true });
  };
}
