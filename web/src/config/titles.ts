// The document title of every route, so tabs, history and bookmarks say where they lead.
import { VIEW_LABELS, type AppView } from '@/config/paths';

/** A route's title, or one that depends on the address's query (the views of /app). */
export type TitleHandle = { title: string | ((search: URLSearchParams) => string) };

const t = (title: TitleHandle['title']): TitleHandle => ({ title });

export const titles = {
  landing: t('AI-Powered News Experience'),
  register: t('Sign up'),
  forgotPassword: t('Forgot password'),
  resetPassword: t('Reset password'),
  authCallback: t('Signing in'),
  app: t((search) => {
    const q = search.get('q')?.trim();
    if (search.get('view') === 'search' && q) return search.get('item') ? `Story · ${q} · Search` : `${q} · Search`;
    const view = VIEW_LABELS[(search.get('view') ?? 'feed') as AppView] ?? VIEW_LABELS.feed;
    return search.get('item') ? `Story · ${view}` : view;
  }),
  subscribe: t('Get Premium'),
  subscribeSuccess: t('Assinatura'),
  upcomingFeatures: t('Upcoming Features'),
  apiDocs: t('API'),
  weeklySummary: t('Weekly AI Summary'),
  weeklySummaryDetail: t('Weekly AI Summary'),
  insights: t('Insights'),
  trends: t('Trends'),
  profile: t('Profile'),
  tvMode: t('TV mode'),
  alerts: t('Custom News Alerts'),
  unsubscribe: t('Stop e-mails'),
  notFound: t('Page not found'),
};

/** "Feed · Radar"; the product name alone when a route has no title. */
export function documentTitle(handle: TitleHandle | undefined, search: URLSearchParams): string {
  if (!handle) return 'Radar';
  const title = typeof handle.title === 'function' ? handle.title(search) : handle.title;
  return `${title} · Radar`;
}
