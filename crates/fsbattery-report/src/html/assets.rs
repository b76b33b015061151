//! The page's inline style sheet and scripts.
//!
//! Role: keep the report self-contained — no CDN, no web font, no external file — and small.
//! Invariants: nothing here names a remote address; the scripts only touch the page itself
//! (download buttons, sorting the heat-map's rows); [`ERROR_TRAP`] runs first, so any later script error, unhandled
//! rejection or `console.error` is written into the DOM as `<html data-js-error=...>`, where a
//! headless browser test can see it; [`SCRIPT`] sets `data-js-ready="1"` when it has run.

/// Inline CSS: system fonts, readable tables, a responsive grid of chart cards.
pub(crate) const STYLE: &str = r#"
:root{--ink:#1f2937;--muted:#6b7280;--line:#e5e7eb;--bg:#f8fafc;--card:#ffffff;--best:#047857;--accent:#2563eb}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.page-header{background:#111827;color:#f9fafb;padding:20px 32px 0}
.page-header h1{margin:0 0 4px;font-size:22px;font-weight:650}
.page-header .lede{margin:0 0 12px;color:#d1d5db;font-size:13px}
.page-header .warn{color:#fca5a5}
nav{display:flex;flex-wrap:wrap;gap:2px}
nav a{color:#e5e7eb;text-decoration:none;padding:6px 12px;border-radius:6px 6px 0 0;font-size:13px}
nav a:hover{background:#374151}
main{max-width:1240px;margin:0 auto;padding:8px 24px 40px}
section{margin:28px 0;background:var(--card);border:1px solid var(--line);border-radius:10px;padding:18px 22px}
h2{margin:0 0 10px;font-size:19px}
h3{margin:20px 0 8px;font-size:15px}
p{margin:6px 0 10px}
.note{color:var(--muted);font-size:13px}
.chart-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(560px,100%),1fr));gap:16px}
.chart-card{margin:0;border:1px solid var(--line);border-radius:8px;padding:10px 12px 8px;background:#fff;position:relative}
.chart-card figcaption{display:flex;flex-wrap:wrap;align-items:baseline;gap:8px;margin:0 64px 6px 0}
.chart-title{font-weight:600}
.chart-sub{color:var(--muted);font-size:12px}
.chart-body{overflow-x:auto}
.chart-body svg{display:block;max-width:100%;height:auto}
.chart-tools{position:absolute;top:8px;right:10px;display:flex;gap:4px}
.chart-tools button{font:inherit;font-size:11px;padding:1px 7px;border:1px solid #d1d5db;border-radius:4px;background:#f9fafb;color:var(--ink);cursor:pointer}
.chart-tools button:hover{background:#eef2ff;border-color:var(--accent)}
.wide{grid-column:1/-1}
.table-wrap{overflow-x:auto;margin:6px 0 12px}
table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
th,td{padding:5px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{background:#f3f4f6;font-weight:600;border-bottom:2px solid #d1d5db;white-space:nowrap}
tbody tr:hover{background:#f9fafb}
td.num{text-align:right;white-space:nowrap}
th.num{text-align:right}
td.unit{color:var(--muted);white-space:nowrap}
td.best{color:var(--best);font-weight:700;background:#d1fae5}
td.tied{background:#f0fdf4}
td.undecided .mark{color:var(--muted, #6b7280)}
td .mark{font-weight:700}
td.best-journaling{color:var(--best);box-shadow:inset 0 0 0 2px #34d399}
td.best-journaling::after{content:" J";font-size:10px;vertical-align:super}
td.failed{color:#b91c1c;font-style:italic}
td.pending,tr.pending th,tr.pending td{color:var(--muted);font-style:italic}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;vertical-align:baseline}
.legend{display:flex;flex-wrap:wrap;gap:14px;list-style:none;padding:0;margin:6px 0}
.legend li{display:flex;align-items:center;font-size:13px}
.sig{color:#047857;font-weight:600}
table.winners td{white-space:nowrap}
table.winners td[data-label="Significance"],table.winners td[data-label="Winner"]{white-space:normal}
.best-mark{color:var(--best);font-weight:700}
.tied-mark,.tie{font-weight:700}
.rank-spread{color:#555;font-size:85%;white-space:nowrap}
.verdict-better{color:#047857;font-weight:600}
.verdict-worse{color:#b91c1c;font-weight:600}
.winner-map td{text-align:center;font-weight:600;min-width:84px;border:1px solid #fff}
table.targets th,table.latency th,table.making th{white-space:nowrap}
table.matrix tbody th{min-width:220px}
table.matrix thead th.num{white-space:normal;text-align:right}
.heat-legend{gap:4px}
.heat-key{display:inline-block;padding:1px 8px;border-radius:3px;font-size:12px;-webkit-print-color-adjust:exact;print-color-adjust:exact}
.heat-key.unranked{background:#f3f4f6;color:var(--muted);font-style:italic}
table.heatmap{width:100%}
table.heatmap tbody th{white-space:normal;min-width:180px;font-weight:500}
table.heatmap tbody th .unit{color:var(--muted);font-size:12px;font-weight:400}
table.heatmap thead th{white-space:normal;vertical-align:bottom}
table.heatmap th.sort button{font:inherit;font-weight:600;border:0;background:none;padding:0;color:var(--ink);cursor:pointer;text-align:inherit}
table.heatmap th.sort button::after{content:" ⇅";color:var(--muted);font-weight:400}
table.heatmap th[aria-sort] button::after{content:" ↑"}
table.heatmap td{border:1px solid #fff;-webkit-print-color-adjust:exact;print-color-adjust:exact}
details>summary{cursor:pointer;list-style:none;display:block}
details.verdicts>summary{color:var(--accent);margin:8px 0}
details>summary::-webkit-details-marker{display:none}
details>summary h2{display:inline-block}
details>summary h2::before{content:"▾ ";color:var(--muted);font-weight:400}
details:not([open])>summary h2::before{content:"▸ "}
section>details:not([open])>summary h2{margin:0}
body{overflow-wrap:anywhere}
main>section{min-width:0}
.table-wrap,.chart-body{max-width:100%}
@media (max-width:600px){
.page-header{padding:14px 14px 0}
main{padding:4px 8px 24px}
section{margin:14px 0;padding:12px 10px}
table.matrix tbody th{min-width:120px}
table.heatmap tbody th{min-width:110px}
.winner-map td{min-width:56px}
.chart-card figcaption{margin-right:0;padding-top:22px}
}
table.heatmap tr.unranked td,table.heatmap td.empty{color:var(--muted);background:#f3f4f6;font-style:italic}
table.heatmap tbody tr:hover{background:none}
table.heatmap tbody tr:hover th{background:#eef2ff}
.winner-map td.none{color:var(--muted);font-weight:400;background:#f3f4f6}
details{margin:4px 0 10px}
summary{cursor:pointer;color:var(--accent)}
pre{background:#0f172a;color:#e2e8f0;padding:10px 12px;border-radius:6px;overflow-x:auto;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f3f4f6;padding:1px 4px;border-radius:3px}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:6px 0 12px}
dl.kv dt{color:var(--muted)}
dl.kv dd{margin:0}
footer{text-align:center;color:var(--muted);font-size:12px;padding:0 0 28px}
@media (max-width:960px){
main{padding:8px 10px 32px}
section{padding:14px 14px;margin:18px 0}
table.winners,table.winners tbody{display:block}
table.winners thead{display:none}
table.winners tr{display:grid;grid-template-columns:minmax(0,1.5fr) minmax(0,.8fr) minmax(0,1.1fr) minmax(0,.8fr) minmax(0,1.1fr);gap:2px 14px;border-bottom:1px solid var(--line);padding:6px 0}
table.winners th[scope=row]{grid-column:1/-1;border:0;padding:2px 4px}
table.winners td{border:0;white-space:normal;padding:2px 4px;text-align:left}
table.winners td[data-label]::before{content:attr(data-label);display:block;font-size:11px;color:var(--muted);letter-spacing:.02em}
table.winners td[colspan]{grid-column:1/-1}
table.matrix tbody th{min-width:140px}
table.heatmap tbody th{min-width:120px}
}
@media (max-width:560px){table.winners tr{grid-template-columns:repeat(2,minmax(0,1fr))}}
@media print{
body{background:#fff;font-size:11pt}
.page-header{background:#fff;color:#000;padding:0 0 6px;border-bottom:1px solid #000}
.page-header .lede{color:#374151}
nav,.chart-tools{display:none}
main{max-width:none;padding:0}
section{break-before:page;border:none;border-radius:0;padding:0;margin:0}
main>section:first-child{break-before:auto}
.chart-grid{display:block}
.chart-card{break-inside:avoid;border:none;padding:0;margin:0 0 10px}
.chart-card figcaption{margin-right:0}
.chart-body{overflow:visible}
.chart-body svg{width:100%;max-width:100%;height:auto}
.table-wrap{overflow:visible}
thead{display:table-header-group}
tr{break-inside:avoid}
table.heatmap th.sort button::after{content:none}
td.best,td.tied,.swatch{-webkit-print-color-adjust:exact;print-color-adjust:exact}
}
"#;

/// Installed first (in `<head>`): records any script error in the DOM, because a report
/// whose script fails looks fine until someone presses a download button.
pub(crate) const ERROR_TRAP: &str = r#"
(function(){var h=document.documentElement;
function mark(m){var p=h.getAttribute('data-js-error');h.setAttribute('data-js-error',(p?p+' | ':'')+String(m));}
window.addEventListener('error',function(e){mark(e.message||'script error');});
window.addEventListener('unhandledrejection',function(e){var r=e.reason;mark('unhandled rejection: '+(r&&r.message?r.message:r));});
var ce=console.error;console.error=function(){mark('console.error: '+Array.prototype.join.call(arguments,' '));return ce.apply(console,arguments);};
})();
"#;

/// Chart downloads: SVG serialises the inline `<svg>`; PNG draws that SVG on a canvas at
/// twice its size. `window.fsbattery` exposes both so a test can drive them.
pub(crate) const SCRIPT: &str = r#"
(function(){'use strict';
function svgText(svg){return '<?xml version="1.0" encoding="UTF-8"?>\n'+new XMLSerializer().serializeToString(svg);}
function save(blob,name){var a=document.createElement('a');a.href=URL.createObjectURL(blob);a.download=name;
document.body.appendChild(a);a.click();setTimeout(function(){URL.revokeObjectURL(a.href);a.remove();},1000);}
function toPng(svg,done){var box=svg.viewBox.baseVal,scale=2,img=new Image();
img.onload=function(){var c=document.createElement('canvas');c.width=box.width*scale;c.height=box.height*scale;
var g=c.getContext('2d');g.fillStyle='#ffffff';g.fillRect(0,0,c.width,c.height);g.drawImage(img,0,0,c.width,c.height);
c.toBlob(function(b){done(b);},'image/png');};
img.onerror=function(){done(null);};
img.src='data:image/svg+xml;charset=utf-8,'+encodeURIComponent(svgText(svg));}
window.fsbattery={svgText:svgText,toPng:toPng};
document.addEventListener('click',function(ev){var b=ev.target.closest('button[data-dl]');if(!b){return;}
var fig=b.closest('figure'),svg=fig&&fig.querySelector('svg.chart');if(!svg){return;}
var name=fig.getAttribute('data-file')||'chart';
if(b.getAttribute('data-dl')==='svg'){save(new Blob([svgText(svg)],{type:'image/svg+xml'}),name+'.svg');}
else{toPng(svg,function(blob){if(blob){save(blob,name+'.png');}else{console.error('PNG export failed for '+name);}});}});
document.addEventListener('click',function(ev){var th=ev.target.closest('table.heatmap th.sort');if(!th){return;}
var key=th.getAttribute('data-sort'),body=th.closest('table').tBodies[0],rows=Array.prototype.slice.call(body.rows);
function at(r){if(key==='order'){return +r.getAttribute('data-order');}var c=r.cells[+key+1],v=c&&c.getAttribute('data-ratio');
return v?+v:Infinity;}
rows.sort(function(a,b){return (at(a)-at(b))||(+a.getAttribute('data-order'))-(+b.getAttribute('data-order'));});
rows.forEach(function(r){body.appendChild(r);});
Array.prototype.forEach.call(th.parentNode.cells,function(h){h.removeAttribute('aria-sort');});
th.setAttribute('aria-sort','ascending');});
document.documentElement.setAttribute('data-js-ready','1');
})();
"#;
