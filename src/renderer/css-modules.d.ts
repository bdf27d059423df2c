// CSS modules (Vite): `import classes from './X.module.css'` gives the generated class names.
declare module '*.module.css' {
  const classes: Readonly<Record<string, string>>;
  export default classes;
}
