import { Spinner } from '@/components/ui/spinner';
import { StateMessage } from '@/components/ui/state-message';
import { paths } from '@/config/paths';
import { useNews } from '@/features/news/api/get-news';
import { TvSlideshow } from '@/features/tv-mode/components/tv-slideshow';
import { tvItems } from '@/features/tv-mode/tv-mode';
import { useAuth } from '@/lib/auth';
import { sourceName, stripCitations } from '@/lib/text';

export default function TvModeRoute() {
  const { isSubscriber } = useAuth();
  const news = useNews();
  if (news.isPending) return <Spinner className="min-h-screen" label="Loading TV mode" />;
  if (news.isError) return <StateMessage title="Error loading news">{news.error.message}</StateMessage>;
  const slides = tvItems(
    news.data.pages.flatMap((p) => p.items),
    isSubscriber,
  ).map((item) => ({
    id: item.id,
    title: stripCitations(item.title),
    text: stripCitations(item.short || item.summary),
    source: item.source || sourceName(item.url) || 'Source',
  }));
  return <TvSlideshow slides={slides} exitTo={paths.landing} />;
}
