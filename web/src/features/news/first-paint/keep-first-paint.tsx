// Keeps the feed page's snapshot for the next visit's first paint (src/features/news/first-paint), once
// the feed shows its stories, and again when what the page looks like changes (the density, the
// plan). Taken when the browser is idle, so it never delays the page it copies.
//
// The snapshot's card is a sample story's, drawn here off the page (in an element that is never
// attached) by the same function that draws the feed's cards: so it has the place of a story's
// "· N sources" whether or not the page shows a story, and no mark of the reader's, whichever
// cards the page shows.
import { useEffect, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { useDensity } from '@/features/news/density';
import type { NewsItem } from '@/lib/api/types';
import { useAuth } from '@/lib/auth';
import { whenIdle } from '@/lib/idle';
import { currentBuild, keepSnapshot } from './snapshot';

/** The story the snapshot's card is drawn from: told by two outlets, with every part a card can show (a source, a link, a summary). */
export const SAMPLE_STORY: NewsItem = {
  id: 'first-paint-sample',
  title: 'A story',
  summary: 'What it says.',
  url: 'https://example.com/story',
  source: 'Example',
  published_date: '2026-01-01T00:00:00Z',
  story: { id: 'first-paint-sample', sources: 2, outlets: [] },
};

/** Mounted by the feed while it shows stories; `card` draws a card exactly as the feed's list does. */
export function KeepFirstPaint({ card }: { card: (item: NewsItem) => ReactNode }) {
  const { user, isSubscriber } = useAuth();
  const [density] = useDensity();
  const [sample] = useState(() => document.createElement('div'));
  const id = user?.id;
  useEffect(() => {
    if (!id) return;
    let left = false;
    whenIdle(() => {
      // Not once the feed has gone: another view's page is not the feed's.
      const root = document.getElementById('root');
      const story = sample.firstElementChild;
      if (!left && root && story) keepSnapshot(localStorage, root, story, id, currentBuild(document), isSubscriber);
    });
    return () => {
      left = true;
    };
  }, [id, density, isSubscriber, sample]);
  return createPortal(card(SAMPLE_STORY), sample);
}
