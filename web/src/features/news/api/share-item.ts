import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';
import type { NewsItem } from '@/lib/api/types';

export const SHARE_SNIPPET_LENGTH = 100;

export const shareItem = (id: string) =>
  unwrap(client.POST('/api/shared/{news_id}', { params: { path: { news_id: id } }, body: { platform: 'linkedin' } }));

/** The professional network's share link with the item's url, title and first 100 characters of its summary. */
export function linkedInShareUrl(item: Pick<NewsItem, 'url' | 'title' | 'summary'>): string {
  const params = new URLSearchParams({
    mini: 'true',
    url: item.url ?? '',
    title: item.title,
    summary: (item.summary ?? '').slice(0, SHARE_SNIPPET_LENGTH),
  });
  return `https://www.linkedin.com/shareArticle?${params.toString()}`;
}

export function useShareItem() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: shareItem,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['shared'] }),
    // docs/product.md §8: share failures are only logged.
    onError: (error) => console.warn('Recording the share failed', error),
  });
}
