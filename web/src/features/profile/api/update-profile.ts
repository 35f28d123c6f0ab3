import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';
import type { ProfileChange } from '@/lib/api/types';
import { UNREAD_KEY } from '@/lib/unread';

/** Changes the fields given (the resume, the reading and mail settings) and answers the profile. */
export const updateProfile = (change: ProfileChange) => unwrap(client.PATCH('/api/user/profile', { body: change }));

/**
 * The lists the server draws by story (feed, Drops and TV, search, the reader's item) and the
 * unread count, which counts stories: read again when the reader turns grouping on or off.
 */
const BY_STORY = [['news'], ['news-item'], ['search'], UNREAD_KEY] as const;

export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateProfile,
    onSuccess: async (profile, change) => {
      queryClient.setQueriesData({ queryKey: ['profile'] }, profile);
      await queryClient.invalidateQueries({ queryKey: ['profile'] });
      // The resume ranks the key takeaways.
      await queryClient.invalidateQueries({ queryKey: ['takeaways'] });
      if (change.stories != null) await Promise.all(BY_STORY.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    },
  });
}
