import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { Profile } from '@/features/profile/api/get-profile';

export const updateProfile = (profile: Profile) => api.patch<Profile>('/api/user/profile', profile);

export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateProfile,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['profile'] });
      // The resume ranks the key takeaways.
      await queryClient.invalidateQueries({ queryKey: ['takeaways'] });
    },
  });
}
