// Every route of the app, in one place, so links and the router cannot drift apart.
export const paths = {
  landing: '/',
  register: '/register',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  authCallback: '/auth/callback',
  app: '/app',
  subscribe: '/subscribe',
  subscribeSuccess: '/subscribe/success',
  upcomingFeatures: '/upcoming-features',
  apiDocs: '/api-docs',
  weeklySummary: '/weekly-summary',
  trends: '/trends',
  weeklySummaryDetail: (id: string) => `/weekly-summary/${encodeURIComponent(id)}`,
  insights: '/insights',
  profile: '/profile',
  tvMode: '/tv-mode',
  alerts: '/alerts',
  unsubscribe: '/unsubscribe',
} as const;

/** The views of /app: the one type every part of the app names them by (`search`: results
 * of a search, drawn as feed cards with the feed's actions). */
export type AppView = 'feed' | 'drops' | 'favorites' | 'read' | 'trash' | 'shared' | 'search';

/** The views' names in tabs, headings and document titles (docs/product.md §2). */
export const VIEW_LABELS: Record<AppView, string> = {
  feed: 'Feed',
  drops: 'Drops',
  favorites: 'Favs',
  read: 'Read',
  trash: 'Trash',
  shared: 'Shared',
  search: 'Search',
};

export const appViewPath = (view: AppView) => (view === 'feed' ? paths.app : `${paths.app}?view=${view}`);

/** The results of a search: in the address, so back, forward and reload show them again. */
export const searchPath = (q: string) => `${paths.app}?view=search&q=${encodeURIComponent(q)}`;

/** The alerts page with a search ready to be saved as an alert. */
export const watchPath = (q: string) => `${paths.alerts}?q=${encodeURIComponent(q)}`;

/**
 * The in-app reader over `view`: deep-linkable, and closed by the browser's back button.
 * Over search results, `q` keeps the query in the address so closing returns to them.
 */
export const readerPath = (view: AppView, id: string, q?: string) =>
  `${view === 'search' ? searchPath(q ?? '') : `${paths.app}?view=${view}`}&item=${encodeURIComponent(id)}`;

/** Router state of a reader opened from a list, so closing it goes back instead of replacing. */
export const READER_STATE = { reader: true } as const;
