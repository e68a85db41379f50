; TextLab setup for Windows (NSIS 3).
;
; Builds TextLab-<version>-windows-x64-setup.exe from a PyInstaller one-folder bundle
; (the folder that holds TextLab.exe):
;
;   makensis -DVERSION=0.1.0 -DDIST=C:\path\to\dist\TextLab installers\windows\textlab.nsi
;
; Defines:
;   VERSION   (required) version shown in Add/Remove Programs, e.g. 0.1.0
;   DIST      (required) the one-folder bundle; absolute, or relative to THIS file's folder
;             (makensis runs from the script's folder)
;   OUTFILE   the setup file to write (default: TextLab-<VERSION>-windows-x64<VARIANT>-setup.exe
;             next to this script)
;   VARIANT   a suffix for the file name and the Add/Remove Programs name, e.g. -cuda
;   ICON      the .ico for the setup, the shortcuts and .textlab files
;             (default: resources\icons\textlab.ico)
;
; At run time:
;   /S             silent install (all defaults: per-user, Start-menu and desktop shortcuts,
;                  .textlab association)
;   /D=C:\dir      install folder (must be last on the command line; NSIS convention)
;   /ALLUSERS      install for every user of this computer (Program Files, HKLM); the setup must
;                  then be started from an administrator prompt or a deployment tool
;   /NODESKTOP     no desktop shortcut      /NOASSOC   do not open .textlab files with TextLab
;
; Default: per-user install to %LOCALAPPDATA%\Programs\TextLab, no administrator rights needed.

Unicode true
ManifestDPIAware true
SetCompressor /SOLID lzma
SetCompressorDictSize 64

!ifndef VERSION
  !error "Give the version: makensis -DVERSION=0.1.0 -DDIST=... textlab.nsi"
!endif
!ifndef DIST
  !error "Give the PyInstaller one-folder bundle: makensis -DDIST=dist\TextLab ... textlab.nsi"
!endif
!if /FileExists "${DIST}\TextLab.exe"
!else
  !error "${DIST}\TextLab.exe not found: build the bundle first (pyinstaller installers/textlab.spec)"
!endif
!ifndef VARIANT
  !define VARIANT ""
!endif
!ifndef ICON
  !define ICON "..\..\resources\icons\textlab.ico"
!endif
!ifndef OUTFILE
  !define OUTFILE "TextLab-${VERSION}-windows-x64${VARIANT}-setup.exe"
!endif

!define APP_NAME "TextLab"
!define APP_EXE "TextLab.exe"
!define PUBLISHER "TextLab developers"
!define URL "https://github.com/textlab/textlab"
!define PROGID "TextLab.Project"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\TextLab"
!define UNINST_EXE "uninstall.exe"

; A four-number version for the file's properties: 0.1.0rc1 -> 0.1.0.0
!searchparse /noerrors "${VERSION}.0.0" "" V_MAJOR "." V_MINOR "." V_PATCH "."
!define /math V_MAJOR_N "${V_MAJOR}" + 0
!define /math V_MINOR_N "${V_MINOR}" + 0
!define /math V_PATCH_N "${V_PATCH}" + 0

!include "MUI2.nsh"
!include "LogicLib.nsh"
!include "FileFunc.nsh"
!include "x64.nsh"
!include "WinVer.nsh"

Name "${APP_NAME}"
Caption "${APP_NAME} ${VERSION}${VARIANT} Setup"
OutFile "${OUTFILE}"
BrandingText "${APP_NAME} ${VERSION}${VARIANT}"
; Per-user by default: no UAC prompt. /ALLUSERS needs an already elevated process (see .onInit).
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\${APP_NAME}"
ShowInstDetails hide
ShowUninstDetails hide

VIProductVersion "${V_MAJOR_N}.${V_MINOR_N}.${V_PATCH_N}.0"
VIAddVersionKey "ProductName" "${APP_NAME}"
VIAddVersionKey "ProductVersion" "${VERSION}${VARIANT}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${APP_NAME} Setup"
VIAddVersionKey "CompanyName" "${PUBLISHER}"
VIAddVersionKey "LegalCopyright" "GPL-3.0-or-later"

Var AllUsers

!define MUI_ABORTWARNING
!if /FileExists "${ICON}"
  !define MUI_ICON "${ICON}"
  !define MUI_UNICON "${ICON}"
  !define HAVE_ICON
!endif

!define MUI_WELCOMEPAGE_TEXT "Setup will install ${APP_NAME} ${VERSION} for you.$\r$\n$\r$\nTextLab finds out which machine-learning model best reproduces your coding of texts. It works offline: your texts never leave your computer.$\r$\n$\r$\nNo administrator rights are needed.$\r$\n$\r$\n$_CLICK"
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_LICENSE "..\..\LICENSE"
!insertmacro MUI_PAGE_COMPONENTS
!define MUI_PAGE_CUSTOMFUNCTION_LEAVE DirectoryLeave
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!define MUI_FINISHPAGE_RUN "$INSTDIR\${APP_EXE}"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${APP_NAME} now"
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"

; ---------------------------------------------------------------------------------------------

Section "${APP_NAME} (required)" SecApp
  SectionIn RO
  SetOutPath "$INSTDIR"
  ; An update replaces the whole bundle: files of the old version must not linger.
  RMDir /r "$INSTDIR\_internal"
  File /r "${DIST}\*.*"
!ifdef HAVE_ICON
  File "/oname=textlab.ico" "${ICON}"
!endif
  WriteUninstaller "$INSTDIR\${UNINST_EXE}"

  ; Add/Remove Programs (Apps & features)
  WriteRegStr SHCTX "${UNINST_KEY}" "DisplayName" "${APP_NAME}${VARIANT}"
  WriteRegStr SHCTX "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr SHCTX "${UNINST_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr SHCTX "${UNINST_KEY}" "URLInfoAbout" "${URL}"
  WriteRegStr SHCTX "${UNINST_KEY}" "DisplayIcon" "$\"$INSTDIR\${APP_EXE}$\",0"
  WriteRegStr SHCTX "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  ${If} $AllUsers == 1
    WriteRegStr SHCTX "${UNINST_KEY}" "UninstallString" "$\"$INSTDIR\${UNINST_EXE}$\" /ALLUSERS"
    WriteRegStr SHCTX "${UNINST_KEY}" "QuietUninstallString" "$\"$INSTDIR\${UNINST_EXE}$\" /ALLUSERS /S"
  ${Else}
    WriteRegStr SHCTX "${UNINST_KEY}" "UninstallString" "$\"$INSTDIR\${UNINST_EXE}$\""
    WriteRegStr SHCTX "${UNINST_KEY}" "QuietUninstallString" "$\"$INSTDIR\${UNINST_EXE}$\" /S"
  ${EndIf}
  WriteRegDWORD SHCTX "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD SHCTX "${UNINST_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  IntFmt $0 "0x%08X" $0
  WriteRegDWORD SHCTX "${UNINST_KEY}" "EstimatedSize" "$0"
SectionEnd

Section "Start-menu shortcut" SecStartMenu
  CreateShortcut "$SMPROGRAMS\${APP_NAME}.lnk" "$INSTDIR\${APP_EXE}" "" "$INSTDIR\${APP_EXE}" 0 \
    SW_SHOWNORMAL "" "Find the model that best reproduces your coding of texts"
SectionEnd

Section "Desktop shortcut" SecDesktop
  CreateShortcut "$DESKTOP\${APP_NAME}.lnk" "$INSTDIR\${APP_EXE}" "" "$INSTDIR\${APP_EXE}" 0
SectionEnd

Section "Open .textlab projects with TextLab" SecAssoc
  WriteRegStr SHCTX "Software\Classes\.textlab" "" "${PROGID}"
  WriteRegStr SHCTX "Software\Classes\.textlab" "Content Type" "application/x-textlab-project"
  WriteRegStr SHCTX "Software\Classes\.textlab\OpenWithProgids" "${PROGID}" ""
  WriteRegStr SHCTX "Software\Classes\${PROGID}" "" "TextLab project"
  WriteRegStr SHCTX "Software\Classes\${PROGID}" "FriendlyTypeName" "TextLab project"
!ifdef HAVE_ICON
  WriteRegStr SHCTX "Software\Classes\${PROGID}\DefaultIcon" "" "$\"$INSTDIR\textlab.ico$\",0"
!else
  WriteRegStr SHCTX "Software\Classes\${PROGID}\DefaultIcon" "" "$\"$INSTDIR\${APP_EXE}$\",0"
!endif
  ; "TextLab.exe gui FILE": the command line's `gui` command opens a table or a .textlab project
  ; (a bare path would be read as the name of a command).
  WriteRegStr SHCTX "Software\Classes\${PROGID}\shell\open\command" "" "$\"$INSTDIR\${APP_EXE}$\" gui $\"%1$\""
  WriteRegStr SHCTX "Software\Classes\Applications\${APP_EXE}\shell\open\command" "" "$\"$INSTDIR\${APP_EXE}$\" gui $\"%1$\""
  WriteRegStr SHCTX "Software\Classes\Applications\${APP_EXE}\SupportedTypes" ".textlab" ""
  ; Tell Explorer that associations changed (SHCNE_ASSOCCHANGED), so the icon shows at once.
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
SectionEnd

!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SecApp} "The TextLab program with its bundled models and example study."
  !insertmacro MUI_DESCRIPTION_TEXT ${SecStartMenu} "A TextLab entry in the Start menu."
  !insertmacro MUI_DESCRIPTION_TEXT ${SecDesktop} "A TextLab icon on the desktop."
  !insertmacro MUI_DESCRIPTION_TEXT ${SecAssoc} "Double-click a saved .textlab project to open it in TextLab."
!insertmacro MUI_FUNCTION_DESCRIPTION_END

; ---------------------------------------------------------------------------------------------

!macro UseScope
  ${If} $AllUsers == 1
    SetShellVarContext all
  ${Else}
    SetShellVarContext current
  ${EndIf}
!macroend

Function .onInit
  ${IfNot} ${RunningX64}
    MessageBox MB_ICONSTOP "TextLab needs a 64-bit version of Windows." /SD IDOK
    Abort
  ${EndIf}
  ${IfNot} ${AtLeastWin10}
    MessageBox MB_ICONSTOP "TextLab needs Windows 10 or newer." /SD IDOK
    Abort
  ${EndIf}
  SetRegView 64
  StrCpy $AllUsers 0
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/ALLUSERS" $R1
  ${IfNot} ${Errors}
    UserInfo::GetAccountType
    Pop $R2
    ${If} $R2 != "Admin"
      MessageBox MB_ICONSTOP "/ALLUSERS installs TextLab for every user and needs administrator rights: start the setup from an administrator prompt." /SD IDOK
      SetErrorLevel 740 ; ERROR_ELEVATION_REQUIRED
      Quit
    ${EndIf}
    StrCpy $AllUsers 1
    ; Only when no /D= was given: /D= sets $INSTDIR before .onInit.
    ${If} $INSTDIR == "$LOCALAPPDATA\Programs\${APP_NAME}"
      StrCpy $INSTDIR "$PROGRAMFILES64\${APP_NAME}"
    ${EndIf}
  ${EndIf}
  !insertmacro UseScope
  ClearErrors
  ${GetOptions} $R0 "/NODESKTOP" $R1
  ${IfNot} ${Errors}
    SectionSetFlags ${SecDesktop} 0
  ${EndIf}
  ClearErrors
  ${GetOptions} $R0 "/NOASSOC" $R1
  ${IfNot} ${Errors}
    SectionSetFlags ${SecAssoc} 0
  ${EndIf}
FunctionEnd

; The uninstaller deletes its folder: make sure that folder is TextLab's own.
Function DirectoryLeave
  ${GetFileName} "$INSTDIR" $R0
  ${If} $R0 != "${APP_NAME}"
    StrCpy $INSTDIR "$INSTDIR\${APP_NAME}"
  ${EndIf}
FunctionEnd

Function .onVerifyInstDir
  ; Never the root of a drive or a system folder.
  StrLen $R0 "$INSTDIR"
  ${If} $R0 < 4
    Abort
  ${EndIf}
FunctionEnd

; ---------------------------------------------------------------------------------------------

Function un.onInit
  SetRegView 64
  StrCpy $AllUsers 0
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/ALLUSERS" $R1
  ${IfNot} ${Errors}
    StrCpy $AllUsers 1
  ${EndIf}
  !insertmacro UseScope
FunctionEnd

Section "Uninstall"
  ; Shortcuts
  Delete "$SMPROGRAMS\${APP_NAME}.lnk"
  Delete "$DESKTOP\${APP_NAME}.lnk"

  ; File association, only where it is still ours
  ReadRegStr $R0 SHCTX "Software\Classes\.textlab" ""
  ${If} $R0 == "${PROGID}"
    DeleteRegValue SHCTX "Software\Classes\.textlab" ""
  ${EndIf}
  DeleteRegValue SHCTX "Software\Classes\.textlab\OpenWithProgids" "${PROGID}"
  DeleteRegKey /ifempty SHCTX "Software\Classes\.textlab\OpenWithProgids"
  DeleteRegValue SHCTX "Software\Classes\.textlab" "Content Type"
  DeleteRegKey /ifempty SHCTX "Software\Classes\.textlab"
  DeleteRegKey SHCTX "Software\Classes\${PROGID}"
  DeleteRegKey SHCTX "Software\Classes\Applications\${APP_EXE}"
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'

  DeleteRegKey SHCTX "${UNINST_KEY}"

  ; Program files. The user's projects, results and caches live elsewhere and stay.
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\${APP_EXE}"
  Delete "$INSTDIR\textlab.ico"
  Delete "$INSTDIR\${UNINST_EXE}"
  ${GetFileName} "$INSTDIR" $R0
  ${If} $R0 == "${APP_NAME}"
    RMDir /r "$INSTDIR"
  ${Else}
    RMDir "$INSTDIR"
  ${EndIf}
SectionEnd
