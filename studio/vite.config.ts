import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The admin path is chosen at setup and known only at run time: every address in the build is relative
// (`base: './'`), and the served shell's `<base href="<adminPath>/">` anchors them. Asset names start with a letter
// (the serving accepts only such names under assets/).
export default defineConfig({
  base: './',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      output: {
        entryFileNames: 'assets/app-[hash].js',
        chunkFileNames: 'assets/c-[hash].js',
        assetFileNames: 'assets/a-[hash][extname]',
      },
    },
  },
});
