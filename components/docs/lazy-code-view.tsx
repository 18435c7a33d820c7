"use client";

import { useEffect, useState } from "react";
import { useLoadWhenIdle } from "@/components/charts/use-load-when-idle";
import { CodeView } from "./code-view";

/**
 * A large example fetched once the browser is idle after the page loads, so the page's HTML stays
 * light; until then (and without JavaScript) a link to the file stands in its place.
 */
export function LazyCodeView({ src, lang, label }: { src: string; lang: string; label: string }) {
  const [wanted] = useLoadWhenIdle();
  const [text, setText] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    fetch(src)
      .then((res) => (res.ok ? res.text() : Promise.reject(new Error(String(res.status)))))
      .then(
        (body) => live && setText(body.replace(/\n$/, "")),
        () => live && setFailed(true),
      );
    return () => {
      live = false;
    };
  }, [wanted, src]);

  if (text !== null) return <CodeView text={text} lang={lang} label={label} />;
  return (
    <div className="code-block not-prose" data-code-block="" data-lazy-example={src}>
      <div className="code-head">
        <span>{label}</span>
      </div>
      <p className="code-hl">
        {failed ? "The example could not be loaded: " : "Loading the example… "}
        <a href={src} className="text-sky-300!">
          {src}
        </a>
      </p>
    </div>
  );
}
