// uPlot's stylesheet, imported with the lazily loaded chart (chart.tsx): vite emits it as a file of that chunk.
declare module 'uplot/dist/uPlot.min.css';
