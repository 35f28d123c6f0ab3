import { useRef, type ReactNode } from 'react';
import { useCardFocus } from '@/features/news/card-focus';
import { useDensity } from '@/features/news/density';

/**
 * A view's list of cards, named for assistive technology, keeping focus among its cards (the
 * single-key shortcuts find it by `data-card-list`).
 */
export function CardList({ label, children }: { label: string; children: ReactNode }) {
  const list = useRef<HTMLElement>(null);
  const [density] = useDensity();
  useCardFocus(list);
  return (
    <section ref={list} aria-label={label} data-card-list className={`flex flex-col ${density === 'list' ? 'gap-1' : 'gap-3'}`}>
      {children}
    </section>
  );
}
