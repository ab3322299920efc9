//go:build js && wasm

package ui

import (
	"syscall/js"

	"github.com/hexops/vecty"
)

// downloadDeployment asks the core (window.aisimulate.deployment, in the simulation worker)
// for the deploy/ files of a prediction or a recommendation and saves their zip as name; a
// failure is shown as the page's notice.
func (a *App) downloadDeployment(name, kind string, args ...any) {
	var onOK, onErr js.Func
	release := func() { onOK.Release(); onErr.Release() }
	onOK = js.FuncOf(func(_ js.Value, r []js.Value) any {
		defer release()
		download(name, "application/zip", r[0].Get("zip"))
		return nil
	})
	onErr = js.FuncOf(func(_ js.Value, e []js.Value) any {
		defer release()
		a.notice = "deployment download failed: " + e[0].Get("message").String()
		vecty.Rerender(a)
		return nil
	})
	js.Global().Get("aisimulate").Call("deployment", append([]any{kind}, args...)...).Call("then", onOK, onErr)
}
