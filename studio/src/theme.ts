import {
  Alert,
  createTheme,
  darken,
  defaultVariantColorsResolver,
  luminance,
  Modal,
  parseThemeColor,
  type CSSVariablesResolver,
  type VariantColorsResolver,
} from '@mantine/core';
import { t } from './i18n/en.ts';

/**
 * A color darkened until it keeps 4.5:1 (WCAG AA for small text) both as text on white or on its own light tint and
 * under white text: Mantine's default shades (blue 6, green, orange, yellow at any shade) fall short of it.
 */
export function readable(color: string): string {
  let c = color;
  for (let step = 0; luminance(c) > 0.15 && step < 10; step++) c = darken(c, 0.1);
  return c;
}

/** Colored text and white text on color, at the contrast above (the studio is light only: `defaultColorScheme`). */
const variantColorResolver: VariantColorsResolver = (input) => {
  const colors = defaultVariantColorsResolver(input);
  const parsed = parseThemeColor({ color: input.color || input.theme.primaryColor, theme: input.theme });
  if (!parsed.isThemeColor || parsed.color === 'dark') return colors;
  const shade = readable(parsed.value);
  switch (input.variant) {
    case 'filled':
      return { ...colors, background: shade, hover: darken(shade, 0.1), color: 'var(--mantine-color-white)' };
    case 'light':
    case 'subtle':
    case 'outline':
    case 'transparent':
      return { ...colors, color: shade };
    default:
      return colors;
  }
};

/** Dimmed text and error messages at the same contrast. */
const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
  },
  dark: {},
});

/**
 * The studio's Mantine theme: the primary color at shade 9 (links, and the filled and light controls that name no
 * color, take it through CSS variables the resolver above does not reach), and a name for every close button.
 */
export const theme = createTheme({
  primaryShade: { light: 9, dark: 8 },
  variantColorResolver,
  components: {
    Alert: Alert.extend({ defaultProps: { closeButtonLabel: t('common.dismiss') } }),
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': t('common.close') } } }),
  },
});
export { cssVariablesResolver };
