import { queryOptions, useQuery } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';
import type { ProfileBody } from '@/lib/api/types';

export type Profile = ProfileBody;

export const getProfile = (signal?: AbortSignal) => unwrap(client.GET('/api/user/profile', { signal }));

export const profileQueryOptions = (userId: string | null | undefined) =>
  queryOptions({ queryKey: ['profile', userId ?? null], queryFn: ({ signal }) => getProfile(signal), enabled: Boolean(userId) });

export function useProfile(userId: string | null | undefined) {
  return useQuery(profileQueryOptions(userId));
}
