import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';
import type { ProfileChange } from '@/lib/api/types';

/** Changes the fields given (the resume, the mark-on-open setting) and answers the profile. */
export const updateProfile = (change: ProfileChange) => unwrap(client.PATCH('/api/user/profile', { body: change }));

export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateProfile,
    onSuccess: async (profile) => {
      queryClient.setQueriesData({ queryKey: ['profile'] }, profile);
      await queryClient.invalidateQueries({ queryKey: ['profile'] });
      // The resume ranks the key takeaways.
      await queryClient.invalidateQueries({ queryKey: ['takeaways'] });
    },
  });
}
