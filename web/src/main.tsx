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
preloadRoute(window.location.pathname);
if (mayHaveSession(localStorage, window.location.hash) && !storedSession(localStorage)?.user) void import('@supabase/auth-js');

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AppProvider>
      <AppRouter />
    </AppProvider>
  </StrictMode>,
);
