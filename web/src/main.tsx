import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { AppProvider } from '@/app/provider';
import { AppRouter, preloadRoute } from '@/app/router';
import { mayHaveSession } from '@/lib/auth';
import { startEarlyFeed } from '@/lib/early-feed';
import './index.css';

// Before React renders: the first feed page, the page's chunk and (when there may be a
// session) the auth client all start downloading at once, instead of one after the other.
startEarlyFeed(window.location.pathname);
preloadRoute(window.location.pathname);
if (mayHaveSession(localStorage, window.location.hash)) void import('@supabase/auth-js');

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AppProvider>
      <AppRouter />
    </AppProvider>
  </StrictMode>,
);
