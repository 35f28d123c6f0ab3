import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { AppProvider } from '@/app/provider';
import { AppRouter, preloadRoute } from '@/app/router';
import { mayHaveSession } from '@/lib/auth';
import './index.css';

// Before React renders (index.html has already asked for the first feed page): the page's
// chunk and, when there may be a session, the auth client start downloading at once.
preloadRoute(window.location.pathname);
if (mayHaveSession(localStorage, window.location.hash)) void import('@supabase/auth-js');

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AppProvider>
      <AppRouter />
    </AppProvider>
  </StrictMode>,
);
