// The theme before the page is drawn (no flash of the other one): dark unless this browser chose light.
"use strict";
document.documentElement.dataset.theme = localStorage.getItem("judge-ui-theme") === "light" ? "light" : "dark";
