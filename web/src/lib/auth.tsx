// Session state for the whole app. The daemon speaks the hosted auth protocol at /auth/v1, so
// the stock auth client is used as-is; its public key comes from /api/config first.
import type { AuthClient, Session, User } from '@supabase/auth-js';

type AuthClientType = InstanceType<typeof AuthClient>;
import { useQueryClient } from '@tanstack/react-query';
import { createContext, lazy, Suspense, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { endSession, setTokenSource } from '@/lib/api/base';
import type { ClientConfig } from '@/lib/api/types';
import { AUTH_STORAGE_KEY, storedSession } from '@/lib/early-feed';
import { FIRST_PAINT_KEY } from '@/lib/first-paint-key';
import { recheckSubscription } from '@/lib/subscription';
import type { SubscriptionState } from '@/lib/subscription-watch';
import { whenIdle } from '@/lib/idle';
import { toast } from '@/lib/toast';

/** The service worker's cache of API answers (vite.config.ts). */
export const API_CACHE = 'radar-api';

export { AUTH_STORAGE_KEY };

/**
 * The address fragment as the page was opened. The auth client consumes and clears the
 * fragment while it starts, but /reset-password and / still need to see what it carried.
 */
export const initialUrlHash = typeof window === 'undefined' ? '' : window.location.hash;

export type RadarUser = User & {
  user_metadata: User['user_metadata'] & { avatar_url?: string };
};

export type AuthStatus = 'loading' | 'signedIn' | 'signedOut';

export interface AuthResult {
  error: string | null;
  session?: Session | null;
}

interface AuthContextValue {
  status: AuthStatus;
  user: RadarUser | null;
  session: Session | null;
  config: ClientConfig | null;
  /** The server's decision (`GET /api/user/metadata`), kept fresh by lib/subscription.ts. */
  isSubscriber: boolean;
  /** Whether the subscriber answer is final (the user metadata has been read, or there is no user). */
  subscriptionKnown: boolean;
  /** Reads the subscription again, e.g. when a feed answer disagrees with `isSubscriber`. */
  recheckSubscription(): void;
  signIn(email: string, password: string): Promise<AuthResult>;
  signInWithGoogle(): Promise<AuthResult>;
  signUp(email: string, password: string): Promise<AuthResult>;
  signOut(): Promise<AuthResult>;
  resetPassword(email: string): Promise<AuthResult>;
  updatePassword(password: string): Promise<AuthResult>;
  /** Starts an e-mail change: the server mails the links that confirm it (both addresses by default). */
  changeEmail(email: string): Promise<AuthResult>;
  refreshUser(): Promise<void>;
}

const AuthContext = createContext<AuthContextValue | null>(null);

const SubscriptionWatch = lazy(() => import('@/lib/subscription-watch'));
const UNKNOWN: SubscriptionState = { subscriber: false, known: false };

export const GOOGLE_DISABLED = 'Google sign in is temporarily disabled';
const LOCAL_SET_KEYS = ['userFavorites', 'userHiddenItems', 'userReadItems'];

/**
 * The configuration the daemon wrote into index.html (`#radar-config`), so start-up needs no
 * round trip for it; null under the Vite dev server, which serves the page unchanged.
 */
function inlineConfig(): ClientConfig | null {
  const text = document.getElementById('radar-config')?.textContent;
  if (!text) return null;
  try {
    return JSON.parse(text) as ClientConfig;
  } catch {
    return null;
  }
}

/** GET /api/config, for a page served without it inline; the HTTP client loads for it. */
async function fetchConfig(): Promise<ClientConfig> {
  const { client, unwrap } = await import('@/lib/api-client');
  return unwrap(client.GET('/api/config'));
}

// The auth client is its own chunk rather than part of the first script, downloaded only when
// a session may exist or the reader signs in or up.
async function createAuthClient(anonKey: string): Promise<AuthClientType> {
  const { AuthClient } = await import('@supabase/auth-js');
  return new AuthClient({
    url: `${window.location.origin}/auth/v1`,
    headers: { apikey: anonKey, Authorization: `Bearer ${anonKey}` },
    storageKey: AUTH_STORAGE_KEY,
    persistSession: true,
    autoRefreshToken: true,
    detectSessionInUrl: true,
    flowType: 'implicit',
  });
}

/** Wraps an auth call: provider errors come back as text, anything thrown becomes `failure`. */
async function guarded(failure: string, call: () => Promise<AuthResult>): Promise<AuthResult> {
  try {
    return await call();
  } catch (error) {
    console.warn(failure, error);
    throw new Error(failure, { cause: error });
  }
}

/**
 * Whether this browser may hold a session: one stored by the auth client, or tokens in the
 * address (sign-up confirmation, recovery). A visitor with neither is signed out at once, and
 * the auth client is downloaded only when they sign in or up: the landing page stays light.
 */
export function mayHaveSession(storage: Storage, hash: string): boolean {
  return Boolean(storage.getItem(AUTH_STORAGE_KEY)) || /(^|[#&])(access_token|error)=/.test(hash);
}

/** Resolves once the page and what it asked for have loaded, and the browser is idle. */
function pageLoaded(): Promise<void> {
  const idle = () => new Promise<void>((resolve) => whenIdle(resolve));
  if (document.readyState === 'complete') return idle();
  return new Promise<void>((resolve) => window.addEventListener('load', () => resolve(), { once: true })).then(idle);
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [config, setConfig] = useState<ClientConfig | null>(null);
  // A stored, unexpired session lets the app draw the reader's pages at once, before the auth
  // client has downloaded; the client confirms it (refreshing or signing out) once started.
  const [provisional] = useState(() => {
    const stored = storedSession(localStorage);
    if (stored?.user) setTokenSource(async () => stored.access_token);
    return stored?.user ? stored : null;
  });
  const [session, setSession] = useState<Session | null>(() => (provisional as Session | null) ?? null);
  const [user, setUser] = useState<RadarUser | null>(() => (provisional?.user as RadarUser | undefined) ?? null);
  const [status, setStatus] = useState<AuthStatus>(provisional ? 'signedIn' : 'loading');

  // One configuration and one auth client for the app's life, made on first need.
  const configRef = useRef<Promise<ClientConfig> | null>(null);
  const loadConfig = useCallback(() => {
    configRef.current ??= (async () => inlineConfig() ?? (await fetchConfig()))();
    return configRef.current;
  }, []);
  const clientRef = useRef<Promise<AuthClientType> | null>(null);
  const getClient = useCallback(() => {
    clientRef.current ??= (async () => {
      const cfg = await loadConfig();
      const auth = await createAuthClient(cfg.anonKey);
      setTokenSource(async () => (await auth.getSession()).data.session?.access_token ?? null);
      auth.onAuthStateChange((_event, next) => {
        setSession(next);
        setUser((next?.user as RadarUser | undefined) ?? null);
        setStatus(next ? 'signedIn' : 'signedOut');
      });
      return auth;
    })().catch((error: unknown) => {
      // A failed download may work next time.
      clientRef.current = null;
      throw error;
    });
    return clientRef.current;
  }, [loadConfig]);

  useEffect(() => {
    let cancelled = false;
    (async () => {
      try {
        const cfg = await loadConfig();
        if (cancelled) return;
        setConfig(cfg);
        if (!mayHaveSession(localStorage, initialUrlHash)) {
          setStatus('signedOut');
          return;
        }
        // With a stored session the reader's page is drawn already: the auth client (a fifth
        // of the app's code) waits until the page has loaded, so it takes no bandwidth from
        // what the first story needs on a slow connection. The stored token is good for at
        // least a few more seconds (see early-feed.ts).
        if (provisional) await pageLoaded();
        if (cancelled) return;
        const auth = await getClient();
        const { data: current, error } = await auth.getSession();
        if (error) throw error;
        if (cancelled) return;
        setSession(current.session);
        setUser((current.session?.user as RadarUser | undefined) ?? null);
        setStatus(current.session ? 'signedIn' : 'signedOut');
      } catch (error) {
        if (cancelled) return;
        console.warn('Session loading failed', error);
        toast({ title: 'Session loading failed', description: String((error as Error)?.message ?? error), variant: 'destructive' });
        setStatus('signedOut');
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [loadConfig, getClient, provisional]);

  // Reported by <SubscriptionWatch> for the current user; unknown until it has read.
  const [watched, setWatched] = useState<SubscriptionState & { userId: string | null }>({ ...UNKNOWN, userId: null });
  const userId = user?.id ?? null;
  const onSubscription = useCallback((state: SubscriptionState) => setWatched({ ...state, userId }), [userId]);
  const metadata = watched.userId === userId ? watched : UNKNOWN;
  const subscriber = Boolean(user && metadata.subscriber);

  // A new tier changes what the server lets the reader see: the feed's page size, Read
  // More, takeaways. Everything tier-dependent is read again when the decision changes.
  const previous = useRef<boolean | null>(null);
  useEffect(() => {
    if (!metadata.known) return;
    if (previous.current !== null && previous.current !== subscriber) {
      void queryClient.invalidateQueries({ queryKey: ['news'] });
      void queryClient.invalidateQueries({ queryKey: ['takeaways'] });
    }
    previous.current = subscriber;
  }, [subscriber, metadata.known, queryClient]);

  const recheck = useCallback(() => void recheckSubscription(queryClient), [queryClient]);


  const signIn = useCallback(
    (email: string, password: string) =>
      guarded('Failed to sign in', async () => {
        const { data, error } = await (await getClient()).signInWithPassword({ email, password });
        return { error: error?.message ?? null, session: data.session };
      }),
    [getClient],
  );

  const signUp = useCallback(
    (email: string, password: string) =>
      guarded('Failed to sign up', async () => {
        const { data, error } = await (await getClient()).signUp({ email, password });
        return { error: error?.message ?? null, session: data.session };
      }),
    [getClient],
  );

  const signOut = useCallback(() => {
    const endAndForget = async (): Promise<AuthResult> => {
      // Reads still in flight would reach the server after it has ended the session and come
      // back 401: they are dropped first (their answers are for the account that is leaving).
      await queryClient.cancelQueries();
      const { error } = await (await getClient()).signOut();
      if (error) return { error: error.message };
      // docs/product.md §4: sign-out removes the session key; the local item sets belong to the
      // account that just left, so they go too.
      localStorage.removeItem(AUTH_STORAGE_KEY);
      LOCAL_SET_KEYS.forEach((key) => localStorage.removeItem(key));
      // What the next visit would draw first (src/features/news/first-paint) is this account's page.
      localStorage.removeItem(FIRST_PAINT_KEY);
      queryClient.clear();
      // What the service worker kept of the API answered this account (src/lib/offline.tsx).
      if ('caches' in window) void caches.delete(API_CACHE);
      setSession(null);
      setUser(null);
      setStatus('signedOut');
      return { error: null };
    };
    // Reads asked for meanwhile (a badge's timer) are held, and dropped once the session has ended.
    return guarded('Failed to sign out', () => endSession(endAndForget, (outcome) => outcome.error === null));
  }, [getClient, queryClient]);

  const resetPassword = useCallback(
    (email: string) =>
      guarded('Failed to send reset password email', async () => {
        const { error } = await (await getClient()).resetPasswordForEmail(email, {
          redirectTo: `${window.location.origin}/reset-password`,
        });
        return { error: error?.message ?? null };
      }),
    [getClient],
  );

  const updatePassword = useCallback(
    (password: string) =>
      guarded('Password reset failed', async () => {
        const { error } = await (await getClient()).updateUser({ password });
        return { error: error?.message ?? null };
      }),
    [getClient],
  );

  const changeEmail = useCallback(
    (email: string) =>
      guarded('Failed to change e-mail', async () => {
        const { data, error } = await (await getClient()).updateUser(
          { email },
          { emailRedirectTo: `${window.location.origin}/auth/callback` },
        );
        if (!error && data.user) setUser(data.user as RadarUser);
        return { error: error?.message ?? null };
      }),
    [getClient],
  );

  const signInWithGoogle = useCallback(async () => ({ error: GOOGLE_DISABLED }), []);

  // After a subscription changes, the user object is read again so the header follows.
  const refreshUser = useCallback(async () => {
    if (!clientRef.current) return;
    const { data } = await (await getClient()).getUser();
    if (data.user) setUser(data.user as RadarUser);
    await recheckSubscription(queryClient);
  }, [getClient, queryClient]);

  const value = useMemo<AuthContextValue>(
    () => ({
      status,
      user,
      session,
      config,
      isSubscriber: subscriber,
      subscriptionKnown: !user || metadata.known,
      recheckSubscription: recheck,
      signIn,
      signInWithGoogle,
      signUp,
      signOut,
      resetPassword,
      updatePassword,
      changeEmail,
      refreshUser,
    }),
    [status, user, session, config, subscriber, metadata.known, recheck, signIn, signInWithGoogle, signUp, signOut, resetPassword, updatePassword, changeEmail, refreshUser],
  );

  return (
    <AuthContext.Provider value={value}>
      {children}
      {userId && (
        <Suspense fallback={null}>
          <SubscriptionWatch key={userId} userId={userId} onChange={onSubscription} />
        </Suspense>
      )}
    </AuthContext.Provider>
  );
}

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used inside <AuthProvider>');
  return value;
}
