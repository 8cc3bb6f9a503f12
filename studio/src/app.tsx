import { Center, Loader } from '@mantine/core';
import { RouterProvider } from '@tanstack/react-router';
import { t } from './i18n/en.ts';
import { router } from './router.tsx';
import { useSession } from './session.tsx';
import { SignIn } from './sign-in.tsx';

/** Signed out: the sign-in screen. Signed in: the routed studio (the address keeps its place across sign-in). */
export function App() {
  const session = useSession();
  if (session.status === 'checking')
    return (
      <Center h="100vh">
        <Loader aria-label={t('app.loading')} />
      </Center>
    );
  if (session.status === 'anonymous') return <SignIn />;
  return <RouterProvider router={router} />;
}
