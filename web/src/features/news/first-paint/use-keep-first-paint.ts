// Keeps the feed page's snapshot for the next visit's first paint (src/features/news/first-paint), once
// the feed shows its stories, and again when what the page looks like changes (the density, the
// plan). Taken when the browser is idle, so it never delays the page it copies.
import { useEffect } from 'react';
import { useDensity } from '@/features/news/density';
import { useAuth } from '@/lib/auth';
import { currentBuild, keepSnapshot } from './snapshot';
import { whenIdle } from '@/lib/idle';

export function useKeepFirstPaint(shown: boolean): void {
  const { user, isSubscriber } = useAuth();
  const [density] = useDensity();
  const id = user?.id;
  useEffect(() => {
    if (!shown || !id) return;
    let left = false;
    whenIdle(() => {
      // Not once the feed has gone: another view's page is not the feed's.
      const root = document.getElementById('root');
      if (!left && root) keepSnapshot(localStorage, root, id, currentBuild(document), isSubscriber);
    });
    return () => {
      left = true;
    };
  }, [shown, id, density, isSubscriber]);
}
