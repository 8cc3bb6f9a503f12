import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { setNonce } from 'get-nonce';
import { ApiClient } from './api/client.ts';
import { App } from './app.tsx';
import { ApiContext } from './session.tsx';
import { cssVariablesResolver, theme } from './theme.ts';

// The service's CSP allows styles only from here or with this page's nonce; Mantine writes its CSS variables into a
// <style> at run time, so it gets the nonce the shell's own <script> carries (the browser keeps it readable as the
// element's `nonce` property, though it hides the attribute).
const nonce = document.querySelector<HTMLScriptElement>('script[nonce]')?.nonce || undefined;
// The scroll lock of dialogs and menus writes a <style> of its own (react-remove-scroll, through get-nonce).
if (nonce) setNonce(nonce);

const api = new ApiClient((input, init) => fetch(input, init));
const queries = new QueryClient({
  defaultOptions: { queries: { retry: 1, staleTime: 30_000, refetchOnWindowFocus: false } },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider
      theme={theme}
      cssVariablesResolver={cssVariablesResolver}
      getStyleNonce={nonce ? () => nonce : undefined}
      defaultColorScheme="light"
    >
      <QueryClientProvider client={queries}>
        <ApiContext value={api}>
          <App />
        </ApiContext>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
