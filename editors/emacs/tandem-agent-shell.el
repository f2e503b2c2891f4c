;;; tandem-agent-shell.el --- Tandem as an agent-shell agent  -*- lexical-binding: t; -*-

;; Load after agent-shell, e.g. (with-eval-after-load 'agent-shell (load "tandem-agent-shell")).
;; M-x agent-shell then offers Tandem; M-x tandem-agent-shell starts it directly.

(require 'agent-shell)

(defcustom tandem-agent-shell-command '("tandem" "acp")
  "The command that starts Tandem speaking ACP, then its arguments."
  :type '(repeat string)
  :group 'agent-shell)

(defcustom tandem-agent-shell-environment nil
  "Extra environment for Tandem, as from `agent-shell-make-environment-variables'."
  :type '(repeat string)
  :group 'agent-shell)

(defun tandem-agent-shell-make-config ()
  "The agent-shell configuration that launches Tandem."
  (agent-shell-make-agent-config
   :identifier 'tandem
   :mode-line-name "Tandem"
   :buffer-name "Tandem"
   :shell-prompt "Tandem> "
   :shell-prompt-regexp "Tandem> "
   :client-maker (lambda (buffer)
                   (agent-shell--make-acp-client
                    :command (car tandem-agent-shell-command)
                    :command-params (cdr tandem-agent-shell-command)
                    :environment-variables tandem-agent-shell-environment
                    :context-buffer buffer))
   :install-instructions "cargo install --path . in a Tandem checkout, or unpack a release archive onto your PATH."))

(defun tandem-agent-shell ()
  "Start a Tandem shell."
  (interactive)
  (agent-shell--dwim :config (tandem-agent-shell-make-config) :new-shell t))

(add-to-list 'agent-shell-agent-configs (tandem-agent-shell-make-config) t)

(provide 'tandem-agent-shell)
;;; tandem-agent-shell.el ends here
