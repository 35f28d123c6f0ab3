import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { AppProvider } from '@/app/provider';
import { AppRouter, preloadRoute } from '@/app/router';
import { mayHaveSession } from '@/lib/auth';
import { storedSession } from '@/lib/early-feed';
import './index.css';

// Before React renders (index.html has already asked for the first feed page): the page's
// chunk starts downloading at once, and so does the auth client when there may be a session
// it must confirm first (tokens in the address, an expired stored one). With a usable stored
// session the page is drawn without it, and it loads once the page has (lib/auth.tsx).
const pageChunk = preloadRoute(window.location.pathname);
if (mayHaveSession(localStorage, window.location.hash) && !storedSession(localStorage)?.user) void import('@supabase/auth-js');

// The first render waits for the page's chunk, so that it draws the page rather than a spinner
// (and the feed's stories, when their early answer has arrived by then: get-news.ts).
void pageChunk.then(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <AppProvider>
        <AppRouter />
      </AppProvider>
    </StrictMode>,
  ),
);
