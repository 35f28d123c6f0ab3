import { useRef, type ReactNode } from 'react';
import { useCardFocus } from '@/features/news/card-focus';
import { useDensity } from '@/features/news/density';
import { useListKeys } from '@/features/news/use-list-keys';

/**
 * A view's list of cards, named for assistive technology, keeping focus among its cards and
 * answering the single-key shortcuts.
 */
export function CardList({ label, children }: { label: string; children: ReactNode }) {
  const list = useRef<HTMLElement>(null);
  const [density] = useDensity();
  useCardFocus(list);
  useListKeys(list);
  return (
    <section ref={list} aria-label={label} className={`flex flex-col ${density === 'list' ? 'gap-1' : 'gap-3'}`}>
      {children}
    </section>
  );
}
